// Tear down all on 20 Vast leases, beside the sum of 20 sequential destroys, in one run
// against the faithful fake (real sshd per instance; each request gets API-like latency and a
// destroyed instance stays listed for a moment, as on Vast). Each destroy is confirmed: the
// provider must stop listing the instance. Target: close to the slowest single
// destroy, not the sum.
// Usage: node bench/run.mjs teardown [leases=20]   (as root, after `npm run build`)
import type { DestroyHandle } from '../src-main/providers/provider';
import { defaultOffers, vastSetup } from '../test/helpers/vast-core';
import { ms } from './bench-helpers';

const N = Number(process.argv[2] ?? 20);
const t = await vastSetup({
  offers: defaultOffers(2 * N + 4),
  timing: { endpointDeadlineMs: 10 * 60_000, endpointPollMs: 2_000 },
});
try {
  t.fake.faults.latency(40);
  t.fake.faults.delayGoneVisibility(1_000);
  t.fake.faults.nextInstanceFate('stay_loading', { count: 2 * N });
  const vast = t.vast();
  const signal = AbortSignal.timeout(10 * 60_000);

  // N leases held by a run (nodes waiting for their endpoint), then one click: tear down all.
  const started = await t.core.client.invoke('run.start', {
    job: { name: 'bench', run: 'true' },
    pool: { provider: 'vastai', count: N },
    keep: true,
  });
  if (!started.ok) throw new Error(started.error.message);
  while (t.core.ledger.listLeases().filter((l) => l.state === 'created').length < N)
    await sleep(100);
  const callsBefore = t.fake.state.calls().length;
  const t0 = performance.now();
  const report = await t.core.client.invoke('lease.destroyAll', {});
  const parallel = performance.now() - t0;
  // When each DELETE reached the API: all at once means the parallelism is Tender's, and
  // the rest of the time is the fake's own work per destroy.
  const deletes = t.fake.state
    .calls()
    .slice(callsBefore)
    .filter((c) => c.method === 'DELETE')
    .map((c) => c.at);
  const spread = Math.max(...deletes) - Math.min(...deletes);
  if (!report.ok || !report.value.allConfirmed)
    throw new Error('tear down all did not confirm every lease');

  // Baseline: N more instances destroyed one after another, each confirmed the same way.
  const handles: DestroyHandle[] = [];
  for (let i = 0; i < N; i++) {
    const r = await vast.createLease(
      { label: `bench-seq-${i}`, runId: 'r-bench', logicalId: `n${i}`, shape: {} },
      signal,
    );
    handles.push(r.lease.destroyHandle);
  }
  const singles: number[] = [];
  for (const h of handles) {
    const s0 = performance.now();
    await vast.destroyLease(h, signal);
    while (!(await vast.isGone(h, signal))) await sleep(150); // the orchestrator's poll in tests
    singles.push(performance.now() - s0);
  }
  const sum = singles.reduce((a, b) => a + b, 0);
  const slowest = Math.max(...singles);
  console.log(
    `tear down all, ${N} Vast leases (fake: 40 ms per request; each destroy also stops a real sshd and deletes a Unix user, on these same 2 cores):`,
  );
  console.log(`  tender down --all (parallel, each confirmed)   ${ms(parallel)}`);
  console.log(`  ${N} sequential destroys, summed               ${ms(sum)}`);
  console.log(`  slowest single destroy                         ${ms(slowest)}`);
  console.log(
    `  ratio all / sum: ${(parallel / sum).toFixed(2)}×   ratio all / slowest: ${(parallel / slowest).toFixed(2)}×`,
  );
  console.log(
    `  the ${deletes.length} DELETE calls reached the API within ${ms(spread)} of each other`,
  );
  console.log(`  live instances left on the fake: ${t.fake.state.liveInstances().length}`);
} finally {
  await t.close();
}

function sleep(msec: number) {
  return new Promise((r) => setTimeout(r, msec));
}
