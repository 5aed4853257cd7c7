// The agent started while the boot checks answer (nodes/speculative-start.ts), over real
// sshd. The probe's GPU look is a fake `nvidia-smi` on the host that waits for a node
// folder's agent.log (which only the agent's `start` writes) and says whether it came: on a
// host whose cached agent is the bundle the daemon is starting before the probe ends; with
// verify commands, nothing starts before they pass; the run is whole either way.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runOnHosts, sshCore, sshJob } from '../helpers/ssh-core';
import { startSshd, type SshdFixture } from '../helpers/sshd';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function host() {
  const f = await startSshd({ bashrc: 'export PATH="$HOME/fakebin:$PATH"\n' });
  cleanups.push(() => f.stop());
  const t = sshCore([f]);
  cleanups.push(() => t.close());
  writeFileSync(join(t.work, 'hello.txt'), 'hello\n');
  // The first run puts the agent in the host's cache (nothing to guess on before it).
  const first = await runOnHosts(t.core, sshJob(t.work), ['h0']);
  expect(first.status, first.failedReason ?? '').toBe('completed');
  return { f, ...t };
}

/** The probe's `nvidia-smi -L` waits up to `waitS` for an agent log in a node folder and
 *  writes `up` or `down` to ~/saw; any other call (the agent's own GPU look) says no GPU. */
function gpuLookWaitingForAgent(f: SshdFixture, waitS: number): () => string {
  const bin = join(f.home, 'fakebin');
  mkdirSync(bin, { recursive: true });
  const script = `#!/bin/sh
[ "$1" = "-L" ] || exit 1
i=0
while [ $i -lt ${waitS * 20} ]; do
  if ls "$HOME"/.tender/nodes/*/agent.log >/dev/null 2>&1; then echo up >> "$HOME/saw"; exit 1; fi
  sleep 0.05; i=$((i+1))
done
echo down >> "$HOME/saw"; exit 1
`;
  writeFileSync(join(bin, 'nvidia-smi'), script);
  chmodSync(join(bin, 'nvidia-smi'), 0o755);
  chmodSync(bin, 0o755);
  return () => readFileSync(join(f.home, 'saw'), 'utf8');
}

describe('the agent started ahead of the boot checks (ssh provider, real sshd)', () => {
  it('on a host with the cached agent, the daemon starts while the probe still runs; the run completes', async () => {
    const { f, core, work } = await host();
    const saw = gpuLookWaitingForAgent(f, 20);
    const run = await runOnHosts(core, sshJob(work), ['h0']);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(saw()).toBe('up\n');
    expect(core.ledger.liveLeases()).toEqual([]);
  }, 90_000);

  it('with verify commands, nothing starts before they pass', async () => {
    const { f, core, work } = await host();
    const saw = gpuLookWaitingForAgent(f, 3);
    const started = await core.client.invoke('run.start', {
      job: sshJob(work),
      pool: { provider: 'ssh', hosts: ['h0'], verify: ['true'] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    const run = core.runView(started.value.id);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(saw()).toBe('down\n');
  }, 90_000);
});
