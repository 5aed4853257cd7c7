import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import type { CreateLeaseResult } from '../../src-main/providers/provider';
import { agentBundlePath } from '../helpers/agent-bundle';

/** A local provider whose create never returns: the run is still provisioning at close. */
class HungLocal extends LocalProvider {
  override createLease(): Promise<CreateLeaseResult> {
    return new Promise<never>(() => {});
  }
}

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

it('close() stops the guard of a run it stops driving: nothing touches the closed ledger', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tender-guard-close-'));
  roots.push(root);
  const core = TenderCore.open({
    home: join(root, 'home'),
    reconcile: false,
    timing: { guardEveryMs: 20 },
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    providers: (d) => [new HungLocal(d.home, d.now)],
  });
  const started = await core.client.invoke('run.start', {
    job: { name: 'g', run: 'true' },
    pool: { provider: 'local' },
    policy: { maxDurationMs: 3_600_000 },
  });
  if (!started.ok) throw new Error(started.error.message);
  await core.close();

  const rejections: string[] = [];
  const onRejection = (err: unknown) => rejections.push(String(err));
  process.on('unhandledRejection', onRejection);
  // Ten guard periods: a guard still running after close would tick in them.
  await new Promise((r) => setTimeout(r, 10 * 20));
  process.off('unhandledRejection', onRejection);

  expect(rejections).toEqual([]);
});
