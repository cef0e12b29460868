import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { capConnectionsPerAddress, SITE_FACTOR } from './connection-cap.js';

/** What the cap reads of an accepted socket: its peer, `destroy`, and `close`. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
  destroy(): void {
    this.destroyed = true;
  }
  close(): void {
    this.emit('close');
  }
}

function capped(max: number): { server: Server; accept: (address: string) => FakeSocket } {
  const server = createServer();
  capConnectionsPerAddress(
    server,
    max,
    () => false,
    () => undefined,
  );
  return {
    server,
    accept: (address) => {
      const socket = new FakeSocket(address);
      server.emit('connection', socket);
      return socket;
    },
  };
}

/** The i-th /64 of the site 2001:db8:7::/48. */
const inSite = (i: number, host = 1): string => `2001:db8:7:${i.toString(16)}::${host}`;

describe('capConnectionsPerAddress', () => {
  it('holds an IPv6 site (/48) to SITE_FACTOR times the cap, whatever /64s it spreads over', () => {
    const max = 3;
    const { accept } = capped(max);
    const held: FakeSocket[] = [];
    // every /64 of the site stays under its own cap (max - 1 each)
    for (let i = 0; held.length < max * SITE_FACTOR; i++) {
      for (let h = 0; h < max - 1 && held.length < max * SITE_FACTOR; h++) {
        const socket = accept(inSite(i, h + 1));
        expect(socket.destroyed).toBe(false);
        held.push(socket);
      }
    }
    // the site is full: a fresh /64 of it is refused, another site and IPv4 are not
    expect(accept(inSite(1000)).destroyed).toBe(true);
    expect(accept('2001:db8:8::1').destroyed).toBe(false);
    expect(accept('192.0.2.1').destroyed).toBe(false);
    // one closed, one more of the site gets in
    held[0]!.close();
    expect(accept(inSite(1000)).destroyed).toBe(false);
  });

  it('never holds more than max per /64 nor max x SITE_FACTOR per /48 (any order of opens and closes)', () => {
    fc.assert(
      fc.property(
        // one step in five closes a connection: the site fills up and empties again
        fc.array(
          fc.tuple(
            fc.nat({ max: 4 }).map((n) => n === 0),
            fc.nat({ max: 40 }),
            fc.nat({ max: 3 }),
          ),
          {
            minLength: 100,
            maxLength: 400,
          },
        ),
        (steps) => {
          const max = 2;
          const { accept } = capped(max);
          const open: Array<{ socket: FakeSocket; net: number }> = [];
          for (const [close, net, host] of steps) {
            if (close && open.length > 0) {
              open.splice(net % open.length, 1)[0]!.socket.close();
              continue;
            }
            const socket = accept(inSite(net, host + 1));
            const perNet = open.filter((o) => o.net === net).length;
            const admitted = perNet < max && open.length < max * SITE_FACTOR;
            expect(socket.destroyed).toBe(!admitted);
            if (admitted) open.push({ socket, net });
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
