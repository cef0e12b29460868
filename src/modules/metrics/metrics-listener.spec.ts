import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { type MetricsListener, startMetricsListener } from './metrics-listener.js';

function open(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('the metrics listener', () => {
  let listener: MetricsListener | undefined;
  afterEach(async () => listener?.close());

  it('holds at most 64 connections: a local client cannot use up the descriptors', async () => {
    listener = await startMetricsListener('127.0.0.1', 0, () => Promise.resolve('up 1\n'));
    const held = [];
    for (let i = 0; i < 64; i++) held.push(await open(listener.port));
    const extra = await open(listener.port);
    // closed by the server as soon as it is accepted
    await extra.closed;
    const answer = await fetch(`http://127.0.0.1:${listener.port}/metrics`).catch(() => null);
    expect(answer).toBeNull();
    for (const { socket } of held) socket.destroy();
    await Promise.all(held.map((h) => h.closed));
  });
});
