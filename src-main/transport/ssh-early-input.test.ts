// EarlyInput against a double of the two ssh2 internals it hooks (the real ones are
// exercised over a real sshd in ssh-shell.int.test.ts): which channel goes to whom, and
// that nothing is hooked where the internals are not there.
import type { Client, ClientChannel } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { EarlyInput } from './ssh-early-input';

/** What ssh2 1.17 does for an exec: a local id taken at once, then (on the server's
 *  confirmation) the channel in its place and the request sent, then the answer. */
function fakeClient() {
  const sent: { remoteId: number; command: string }[] = [];
  const pending = new Map<number, { command: string; cb: (e?: Error, ch?: unknown) => void }>();
  let next = 0;
  const client = {
    _protocol: {
      exec: (remoteId: number, command: string, _wantReply: boolean) =>
        void sent.push({ remoteId, command }),
    },
    _chanMgr: { _channels: {} as Record<string, unknown> },
    exec(command: string, cb: (e?: Error, ch?: unknown) => void) {
      const id = next++;
      client._chanMgr._channels[id] = () => {};
      pending.set(id, { command, cb });
    },
  };
  return {
    client,
    sent,
    /** The server opened local channel `id` as `remoteId`: ssh2 sends the request. */
    confirm(id: number, remoteId: number) {
      const ch = { incoming: { id }, outgoing: { id: remoteId } };
      client._chanMgr._channels[id] = ch;
      client._protocol.exec(remoteId, pending.get(id)!.command, true);
      return ch;
    },
    answer(id: number) {
      pending.get(id)!.cb(undefined, client._chanMgr._channels[id]);
    },
    fail(id: number) {
      delete client._chanMgr._channels[id];
      pending.get(id)!.cb(new Error('open failed'));
    },
  };
}

describe('EarlyInput: a command’s channel handed over once its request is sent', () => {
  it('gives each of two identical commands its own channel, whatever order they open in', () => {
    const f = fakeClient();
    const early = new EarlyInput(f.client as unknown as Client);
    expect(early.isHooked).toBe(true);
    const got: [string, unknown][] = [];
    const answered: string[] = [];
    for (const who of ['a', 'b'])
      early.exec(
        'cat',
        (ch) => got.push([who, ch]),
        () => answered.push(who),
      );
    const b = f.confirm(1, 71); // the second opens first
    const a = f.confirm(0, 70);
    expect(f.sent.map((s) => s.remoteId)).toEqual([71, 70]); // the requests went out first
    expect(got).toEqual([
      ['b', b],
      ['a', a],
    ]);
    f.answer(0);
    f.answer(1);
    expect(answered).toEqual(['a', 'b']);
    expect(early.handedEarly).toBe(2);
  });

  it('hands nothing over for a channel that never opened, nor twice', () => {
    const f = fakeClient();
    const early = new EarlyInput(f.client as unknown as Client);
    const got: unknown[] = [];
    const errors: (Error | undefined)[] = [];
    early.exec(
      'cat',
      (ch) => got.push(ch),
      (e) => errors.push(e),
    );
    f.fail(0);
    expect(errors[0]?.message).toBe('open failed');
    early.exec(
      'cat',
      (ch) => got.push(ch),
      () => {},
    );
    f.confirm(1, 5);
    f.client._protocol.exec(5, 'cat', true); // a request sent again names no one
    expect(got).toHaveLength(1);
  });

  it('hooks nothing where ssh2’s internals are not there: the command runs as before', () => {
    let ran = '';
    const client = {
      exec: (c: string, cb: (e?: Error, ch?: ClientChannel) => void) => ((ran = c), cb()),
    };
    const early = new EarlyInput(client as unknown as Client);
    expect(early.isHooked).toBe(false);
    let answered = false;
    early.exec(
      'true',
      () => expect.unreachable(),
      () => (answered = true),
    );
    expect([ran, answered]).toEqual(['true', true]);
  });
});
