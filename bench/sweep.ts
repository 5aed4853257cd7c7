// A 24-cell sweep on 4 local nodes (real agents, a real ledger), in process as the app runs
// it: how many times setup ran (target: 4, not 24), and the scheduling overhead per cell —
// from one cell's last line to the next cell's first line on the same node (target:
// < 150 ms). Once with no outputs declared, once with one output file per cell (its pull
// sits between the cells). Baseline in the same process: the 24 commands through
// `xargs -P 4` (4 workers, no Tender), wall time beside Tender's.
// Usage: node bench/run.mjs sweep [cells=24] [nodes=4]   (after `npm run build`)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { JobSpecInput } from '../src-main/contract';
import { TenderCore } from '../src-main/core/tender-core';
import { median, ms } from './bench-helpers';

const CELLS = Number(process.argv[2] ?? 24);
const NODES = Number(process.argv[3] ?? 4);
const REPO = resolve(process.cwd());
const BUNDLE = join(REPO, 'out', 'agent', 'tender-agent.cjs');
const RUN =
  'echo "start $TENDER_PARAM_I"; sleep 0.3; mkdir -p out; echo $TENDER_PARAM_I > out/r.txt; echo "end $TENDER_PARAM_I"';

const root = mkdtempSync(join(tmpdir(), 'tender-bench-sweep-'));
const work = join(root, 'work');
mkdirSync(work, { recursive: true });
for (let i = 0; i < 50; i++) writeFileSync(join(work, `f${i}.py`), `x = ${i}\n`.repeat(100));

async function sweep(label: string, outputs: string[]) {
  const home = join(root, `home-${label.replace(/ /g, '-')}`);
  const counter = join(root, `setup-${label.replace(/ /g, '-')}`);
  const core = TenderCore.open({ home, env: { TENDER_AGENT_BUNDLE: BUNDLE } });
  try {
    const job: JobSpecInput = {
      name: 'bench-sweep',
      setup: `echo x >> ${counter}; sleep 1`,
      run: RUN,
      outputs,
      workspace: { workdir: work, exclude: [] },
      sweep: { axes: { I: Array.from({ length: CELLS }, (_, i) => String(i)) } },
    };
    const t0 = Date.now();
    const started = await core.client.invoke('run.start', {
      job,
      pool: { provider: 'local', count: NODES, verify: [] },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await core.waitRun(runId);
    const wall = Date.now() - t0;
    const cells = await core.client.invoke('run.cells', { runId });
    if (!cells.ok) throw new Error(cells.error.message);
    const logs = await core.client.invoke('logs.read', { runId, channel: 'agent', limit: 100_000 });
    if (!logs.ok) throw new Error(logs.error.message);
    const run = logs.value.records.filter((r) => r.source === 'run');
    const gaps: number[] = [];
    for (const node of new Set(cells.value.map((c) => c.node))) {
      const mine = cells.value
        .filter((c) => c.node === node)
        .sort((a, b) => a.startedAt! - b.startedAt!);
      for (let i = 1; i < mine.length; i++) {
        const prev = run.find((r) => r.line === `end ${mine[i - 1]!.values.I}`);
        const next = run.find((r) => r.line === `start ${mine[i]!.values.I}`);
        if (prev && next) gaps.push(next.ts - prev.ts);
      }
    }
    const setups = readFileSync(counter, 'utf8').trim().split('\n').length;
    const done = cells.value.filter((c) => c.status === 'completed').length;
    console.log(
      `${label.padEnd(12)} ${done}/${CELLS} cells completed on ${NODES} nodes; setup ran ${setups}×; ` +
        `cell-to-cell gap median ${ms(median(gaps))}, max ${ms(Math.max(...gaps))} (${gaps.length} gaps); wall ${ms(wall)}`,
    );
    return wall;
  } finally {
    await core.client.invoke('lease.destroyAll', {});
    await core.close();
  }
}

function baseline(): number {
  const script = join(root, 'cell.sh');
  writeFileSync(script, `cd ${work} && I=$1 && ${RUN.replace(/\$TENDER_PARAM_I/g, '$I')}\n`);
  const t0 = Date.now();
  const r = spawnSync('bash', [
    '-c',
    `seq 0 ${CELLS - 1} | xargs -P ${NODES} -n 1 bash ${script} > /dev/null`,
  ]);
  if (r.status !== 0) throw new Error(String(r.stderr));
  return Date.now() - t0;
}

try {
  console.log(`sweep bench: ${CELLS} cells × (sleep 0.3 s) over ${NODES} local nodes, setup 1 s`);
  await sweep('no outputs', []);
  const withOut = await sweep('1 output', ['out/r.txt']);
  const base = baseline();
  const ideal = Math.ceil(CELLS / NODES) * 300 + 1000;
  console.log(
    `xargs -P ${NODES} (no setup, no Tender): wall ${ms(base)}; ideal with setup ${ms(ideal)}`,
  );
  console.log(`Tender (1 output) wall / ideal: ${(withOut / ideal).toFixed(2)}×`);
} finally {
  try {
    execFileSync('pkill', ['-KILL', '-f', root]);
  } catch {
    // nothing left
  }
  rmSync(root, { recursive: true, force: true });
}
