// The sshd fixture's stop() against a start still in flight: the python wrapper forks sshd
// only after stop() has first looked, and the fakes start and stop nodes from concurrent
// requests. stop() must return and leave no sshd behind.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VastNode } from '../fakes/vast/node';
import { freePort } from '../helpers/free-port';
import { SshdFixture } from '../helpers/sshd';

/** Pids of sshd processes listening with `-p port` (not the python wrapper that runs one).
 *  sshd rewrites its title to `sshd: /usr/sbin/sshd … -p PORT [listener] …`, so the command
 *  line is read as text. */
function sshdOnPort(port: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== 'sshd') continue;
      const line = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (new RegExp(`/usr/sbin/sshd .* -p ${port}( |$)`).test(line)) found.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return found;
}

describe('sshd fixture stop', () => {
  it('stop() during a start ends the sshd that start spawns', async () => {
    const fixture = new SshdFixture({ user: 'fresh' }, await freePort());
    const starting = fixture.begin(0);
    await fixture.stop();
    await starting.catch(() => {}); // stopped before it listened, or listened and was stopped
    expect(sshdOnPort(fixture.port)).toEqual([]);
  });

  it('concurrent listen() calls on a node start one sshd, and stop() ends it', async () => {
    const node = await VastNode.prepare();
    const port = node.port;
    await Promise.all([node.listen(), node.listen(), node.listen()]);
    expect(node.port).toBe(port); // a second start would have lost the port and moved
    expect(sshdOnPort(port)).toHaveLength(1);
    await node.stop();
    expect(sshdOnPort(port)).toEqual([]);
  });
});
