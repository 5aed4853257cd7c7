// ArmedDestroys without a host: what never connected is never waited on. (On a real sshd:
// test/integration/ssh-armed-destroy.int.test.ts.)
import { describe, expect, it } from 'vitest';
import type { NodeShell } from '../../transport/node-shell';
import { ArmedDestroys, armedScript } from './armed-destroy';

/** A connection that never comes up until its signal aborts it. */
const hung = (seen: AbortSignal[]) => (signal: AbortSignal) =>
  new Promise<NodeShell>((_, reject) => {
    seen.push(signal);
    signal.addEventListener('abort', () => reject(signal.reason as Error));
  });

describe('ArmedDestroys', () => {
  it('closing ends a connection still being made for one, and waits on nothing', () => {
    const seen: AbortSignal[] = [];
    const armed = new ArmedDestroys();
    armed.arm('lease-a', 'n1', 'echo gone', hung(seen));
    armed.disarmAll(); // returns at once
    expect(seen[0]?.aborted).toBe(true);
    expect(armed.take('lease-a')).toBeUndefined();
    armed.arm('lease-b', 'n2', 'echo gone', hung(seen)); // after close: nothing armed
    expect(seen).toHaveLength(1);
  });

  it('a destroy armed on a connection that failed says so (null): the caller destroys as usual', async () => {
    const armed = new ArmedDestroys();
    armed.arm('lease-a', 'n1', 'echo gone', () => Promise.reject(new Error('refused')));
    expect(await armed.take('lease-a')!.fire(new AbortController().signal)).toBeNull();
  });

  it('runs the script only on the go line', () => {
    expect(armedScript('rm -rf x')).toBe(
      'IFS= read -r go || exit 0\n[ "$go" = go ] || exit 0\nrm -rf x',
    );
  });
});
