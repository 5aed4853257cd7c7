// Sweeps through the CLI: `[sweep]` in the job file and `--grid` on the command line make
// one job per cell, queued over `--count` nodes; `tender cells`, `tender receipt --job`,
// `tender logs --job` show each cell; `tender rerun --failed` reruns the failed ones; bad
// input exits 2 with line:col and the fix.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CellView, Receipt } from '../../src-main/contract';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

const jobText = (extra: string[] = []) =>
  [
    '[job]',
    'name = "grid"',
    'run = "mkdir -p out && echo \\"lr=$TENDER_PARAM_LR seed=$TENDER_PARAM_SEED\\" | tee out/r.txt && test $TENDER_PARAM_SEED != 2"',
    'outputs = ["out/r.txt"]',
    '[sweep]',
    'SEED = [1, 2]',
    ...extra,
  ].join('\n') + '\n';

describe('tender run with a sweep', () => {
  it('runs every cell of [sweep] × --grid over two nodes; cells, receipts, logs; rerun --failed', async () => {
    const { home, root } = newHome();
    const job = writeJob(root, 'sweep', jobText());
    const ran = await runCli(['run', job, '--grid', 'LR=1e-4,3e-4', '--count', '2', '--json'], {
      home,
    });
    // SEED=2 fails (exit 1 of the job), the others complete.
    expect(ran.code, ran.stderr).toBe(1);
    const runId = /run (r-[a-z0-9]+)/.exec(ran.stderr)![1]!;
    expect(ran.stderr).toContain('sweep: 4 cells over 2 nodes (no earlier sweep of this job to estimate from)');
    expect(ran.stderr).toMatch(
      /4 cells: 2 completed, 2 failed \(tender cells r-[a-z0-9]+\); rerun them: tender rerun r-[a-z0-9]+ --failed/,
    );
    expect(JSON.parse(ran.stdout.trim().split('\n').pop()!).cells).toMatchObject({
      total: 4,
      completed: 2,
      failed: 2,
    });

    const table = await runCli(['cells', runId], { home });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/cell +SEED +LR +status +node +exit/);
    expect(table.stdout).toMatch(/j0 +1 +1e-4 +completed +node-\d +0/);
    expect(table.stdout).toMatch(/j2 +2 +1e-4 +failed +node-\d +1 .*run exited 1/);
    const cells = JSON.parse(
      (await runCli(['cells', runId, '--json'], { home })).stdout,
    ) as CellView[];
    expect(cells.map((c) => [c.id, c.values, c.status])).toEqual([
      ['j0', { SEED: '1', LR: '1e-4' }, 'completed'],
      ['j1', { SEED: '1', LR: '3e-4' }, 'completed'],
      ['j2', { SEED: '2', LR: '1e-4' }, 'failed'],
      ['j3', { SEED: '2', LR: '3e-4' }, 'failed'],
    ]);
    expect(
      readFileSync(join(home, 'runs', runId, 'jobs', 'j1', 'outputs', 'out', 'r.txt'), 'utf8'),
    ).toBe('lr=3e-4 seed=1\n');

    const receipt = JSON.parse(
      (await runCli(['receipt', runId, '--job', 'j1', '--json'], { home })).stdout,
    ) as Receipt;
    expect(receipt).toMatchObject({
      jobId: `${runId}.j1`,
      cell: { id: 'j1', values: { SEED: '1', LR: '3e-4' } },
      status: 'completed',
    });
    const shown = await runCli(['receipt', runId, '--job', 'j3'], { home });
    expect(shown.stdout).toMatch(new RegExp(`${runId} j3 on node-\\d: failed \\(exit 1\\)`));

    const log = await runCli(['logs', runId, '--job', 'j2'], { home });
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain('lr=1e-4 seed=2');
    expect(log.stdout).not.toContain('seed=1');

    const again = await runCli(['rerun', runId, '--failed', '--json'], { home });
    expect(again.code).toBe(1);
    const second = /run (r-[a-z0-9]+)/.exec(again.stderr)![1]!;
    const redone = JSON.parse(
      (await runCli(['cells', second, '--json'], { home })).stdout,
    ) as CellView[];
    expect(redone.map((c) => c.id)).toEqual(['j2', 'j3']);
    // The next sweep of the job is estimated from this one's cells.
    const next = await runCli(['run', job, '--grid', 'LR=1e-4', '--count', '2'], { home });
    expect(next.stderr).toMatch(
      /sweep: 2 cells over 2 nodes; a cell took [\d.]+ s in r-[a-z0-9]+: about 0\.\d\d node-hours, [\d.]+ s on the clock/
    );
  });

  it.each([
    ['an empty axis', jobText(['LR = []']), ':7:1: sweep axis LR is empty'],
    [
      'a bad axis name',
      jobText(['"l-r" = ["1"]']),
      ':7:1: sweep axis "l-r" is not a valid param name',
    ],
  ])('refuses %s with line:col (exit 2)', async (_what, text, message) => {
    const { home, root } = newHome();
    const job = writeJob(root, 'bad', text);
    const r = await runCli(['run', job], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(existsSync(join(home, 'ledger.sqlite'))).toBe(false);
  });

  it.each([
    [['--grid', 'LR'], 'write NAME=v1,v2'],
    [['--grid', 'LR=1,,2'], 'an empty value'],
    [['--grid', '9=1'], 'write NAME=v1,v2'],
  ])('refuses %j (exit 2)', async (flags, message) => {
    const { home, root } = newHome();
    const job = writeJob(root, 'bad', jobText());
    const r = await runCli(['run', job, ...flags], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('cells and --job say what is wrong for a run that is no sweep', async () => {
    const { home, root } = newHome();
    const job = writeJob(root, 'plain', '[job]\nname = "plain"\nrun = "true"\n');
    const ran = await runCli(['run', job], { home });
    const runId = /run (r-[a-z0-9]+)/.exec(ran.stderr)![1]!;
    const cells = await runCli(['cells', runId], { home });
    expect(cells.code).toBe(2);
    expect(cells.stderr).toMatch(/is no sweep/);
    const receipt = await runCli(['receipt', runId, '--job', 'j0'], { home });
    expect(receipt.code).toBe(2);
    expect(receipt.stderr).toMatch(/is no sweep/);
  });
});
