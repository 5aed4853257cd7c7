// A kept node's idle timeout as the views show it (issue 28): a Vast node kept with a
// 1-minute idle timeout says when that timeout ends in `status.get` (the ledger view and
// `tender status` read it there), not "no idle timeout".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openVastCore } from '../helpers/vast-core';
import { vastSetups } from '../helpers/vast-setups';

describe('a kept node’s idle timeout in the views', () => {
  const setup = vastSetups();
  it('a Vast node kept with a 1-minute idle timeout is warm until about a minute after its job', async () => {
    const { core, work, run } = await setup();
    writeFileSync(join(work, 'hello.txt'), 'on vast\n');
    const before = Date.now();
    const done = await run({
      job: { name: 'v', run: 'cat hello.txt', workspace: { workdir: work, exclude: [] } },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
      keep: true,
      policy: { idleTimeoutMs: 60_000, afterJob: 'keep_warm' },
    });
    expect(done.status, done.failedReason ?? '').toBe('completed');
    const status = await core.client.invoke('status.get', {});
    if (!status.ok) throw new Error(status.error.message);
    const lease = status.value.leases.find((l) => l.state === 'created');
    expect(lease?.warm).toBeTruthy();
    const ends = lease!.warm!.idleEndsAt;
    expect(ends).not.toBeNull();
    expect(ends!).toBeGreaterThan(before + 60_000);
    expect(ends!).toBeLessThanOrEqual(Date.now() + 60_000);
    await core.client.invoke('lease.destroy', { target: done.id });
  });

  it('says so too after the process that ran it has exited (`tender run --keep`, then `tender status`)', async () => {
    const t = await setup();
    const before = Date.now();
    const done = await t.run({
      job: { name: 'v', run: 'cat hello.txt', workspace: { workdir: t.work, exclude: [] } },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
      keep: true,
      policy: { idleTimeoutMs: 60_000, afterJob: 'keep_warm' },
    });
    expect(done.status, done.failedReason ?? '').toBe('completed');
    await t.core.close(); // the CLI exits as soon as the run has completed
    const later = openVastCore(t.fake, t.home, { reconcile: false }).core;
    try {
      const status = await later.client.invoke('status.get', {});
      if (!status.ok) throw new Error(status.error.message);
      const lease = status.value.leases.find((l) => l.state === 'created');
      expect(lease?.warm).toBeTruthy();
      const ends = lease!.warm!.idleEndsAt;
      expect(ends).not.toBeNull();
      expect(ends!).toBeGreaterThan(before + 60_000);
      await later.client.invoke('lease.destroy', { target: done.id });
    } finally {
      await later.close();
    }
  });
});
