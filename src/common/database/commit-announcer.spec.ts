import { describe, expect, it, jest } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { CommitAnnouncer } from './commit-announcer.js';

/** A data source whose statements stay in flight until the test answers them. */
function heldDataSource() {
  const sent: Array<{ channels: string[]; answer: (failure?: Error) => void }> = [];
  const dataSource = {
    isInitialized: true,
    query: (_text: string, values: unknown[]) =>
      new Promise<void>((resolve, reject) => {
        const channels = values[0] as string[];
        sent.push({ channels, answer: (failure) => (failure ? reject(failure) : resolve()) });
      }),
  };
  return { sent, announcer: new CommitAnnouncer(dataSource as unknown as DataSource) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('CommitAnnouncer', () => {
  it("calls this process's listeners at once, each for its own channel", () => {
    const { announcer } = heldDataSource();
    const heard: string[] = [];
    announcer.subscribe('a', () => heard.push('a1'));
    const off = announcer.subscribe('a', () => heard.push('a2'));
    announcer.subscribe('b', () => heard.push('b'));
    announcer.announce(['a']);
    expect(heard).toEqual(['a1', 'a2']);
    off();
    announcer.announce(['b', 'a']);
    expect(heard).toEqual(['a1', 'a2', 'b', 'a1']);
  });

  it('sends one statement at a time, the next carrying every channel announced meanwhile', async () => {
    const { sent, announcer } = heldDataSource();
    announcer.announce(['events']);
    expect(sent.map((s) => s.channels)).toEqual([['events']]);
    announcer.announce(['deliveries']);
    announcer.announce(['events', 'deliveries']);
    announcer.announce(['events']);
    // still the one in flight
    expect(sent).toHaveLength(1);
    sent[0]!.answer();
    await turn();
    expect(sent.map((s) => s.channels)).toEqual([['events'], ['deliveries', 'events']]);
    sent[1]!.answer();
    await announcer.settled();
    expect(sent).toHaveLength(2);
  });

  it('a listener that throws does not fail the announcement, nor the other listeners', () => {
    const { sent, announcer } = heldDataSource();
    const error = jest.spyOn(announcer['logger'], 'error').mockImplementation(() => undefined);
    let heard = 0;
    announcer.subscribe('a', () => {
      throw new Error('boom');
    });
    announcer.subscribe('a', () => heard++);
    expect(() => announcer.announce(['a'])).not.toThrow();
    expect(heard).toBe(1);
    expect(error).toHaveBeenCalledWith(expect.stringContaining('boom'));
    expect(sent).toHaveLength(1);
  });

  it('sends nothing for no channel', async () => {
    const { sent, announcer } = heldDataSource();
    announcer.announce([]);
    await announcer.settled();
    expect(sent).toHaveLength(0);
  });

  it('goes on after a statement fails (the listeners poll meanwhile)', async () => {
    const { sent, announcer } = heldDataSource();
    const warn = jest.spyOn(announcer['logger'], 'warn').mockImplementation(() => undefined);
    announcer.announce(['a']);
    announcer.announce(['b']);
    sent[0]!.answer(new Error('connection lost'));
    await turn();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('connection lost'));
    expect(sent.map((s) => s.channels)).toEqual([['a'], ['b']]);
    sent[1]!.answer();
    await announcer.settled();
    announcer.announce(['c']);
    expect(sent.map((s) => s.channels)).toEqual([['a'], ['b'], ['c']]);
    sent[2]!.answer();
    await announcer.settled();
  });
});
