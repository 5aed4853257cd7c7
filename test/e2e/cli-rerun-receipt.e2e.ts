// `tender rerun --receipt receipt.json [--verify]`: a receipt's job runs again (one job,
// its params; a sweep's cell alone), the workspace is diffed file by file against what
// that job was given, and --verify compares the outputs' hashes. A receipt from another
// install, or a file that is no receipt, exits 2 saying so.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src-main/contract';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

const JOB = [
  '[job]',
  'name = "repro"',
  'run = "mkdir -p out && cat data.txt > out/r.txt && echo $TENDER_PARAM_K >> out/r.txt"',
  'outputs = ["out/r.txt"]',
  'params = { K = "1" }',
  '[sweep]',
  'K = ["a", "b"]',
].join('\n');

async function ranSweep() {
  const { home, root } = newHome();
  const job = writeJob(root, 'repro', `${JOB}\n`, { 'data.txt': 'data v1\n' });
  const ran = await runCli(['run', job], { home });
  expect(ran.code, ran.stderr).toBe(0);
  const runId = /run (r-[a-z0-9]+)/.exec(ran.stderr)![1]!;
  const file = join(home, 'runs', runId, 'jobs', 'j1', 'receipt.json');
  return { home, root, job, runId, file };
}

describe('tender rerun --receipt', () => {
  it('reruns one cell from its receipt and verifies its outputs; a changed workspace is diffed and caught', async () => {
    const { home, job, runId, file } = await ranSweep();
    const same = await runCli(['rerun', '--receipt', file, '--verify'], { home });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toMatch(/verified: 1 output\(s\) identical to r-[a-z0-9]+\.j1/);
    expect(same.stderr).not.toMatch(/warning/);
    const again = /run (r-[a-z0-9]+)/.exec(same.stderr.replace(`run ${runId}`, ''))![1]!;
    expect(again).not.toBe(runId);
    const r = JSON.parse((await runCli(['receipt', again, '--json'], { home })).stdout) as Receipt;
    expect(r.job.params).toEqual({ K: 'b' });
    expect(r.cell).toBeUndefined();

    writeFileSync(join(dirname(job), 'data.txt'), 'data v2\n');
    writeFileSync(join(dirname(job), 'extra.txt'), 'new\n');
    const changed = await runCli(['rerun', '--receipt', file, '--verify'], { home });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(/warning: the workspace differs .* \(2 file\(s\)\)/);
    expect(changed.stderr).toMatch(/changed +data\.txt/);
    expect(changed.stderr).toMatch(/added +extra\.txt/);
    expect(changed.stderr).toMatch(/differs +out\/r\.txt/);
    expect(changed.stderr).toMatch(/not reproduced: 1 differ, 0 missing of 1/);
  });

  it('refuses a receipt from another install, and a file that is no receipt (exit 2)', async () => {
    const { home, root, file } = await ranSweep();
    const foreign = JSON.parse(readFileSync(file, 'utf8')) as Receipt;
    const other = join(root, 'other.json');
    writeFileSync(other, JSON.stringify({ ...foreign, installId: 'deadbeef' }));
    const r1 = await runCli(['rerun', '--receipt', other], { home });
    expect(r1.code).toBe(2);
    expect(r1.stderr).toMatch(/written by another Tender install \(deadbeef/);

    const bad = join(root, 'bad.json');
    writeFileSync(bad, '{\n  "version": 1,\n  oops\n}\n');
    const r2 = await runCli(['rerun', '--receipt', bad], { home });
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/bad\.json:3:\d+: not JSON/);

    const notReceipt = join(root, 'nr.json');
    writeFileSync(notReceipt, '{"version": 1}');
    const r3 = await runCli(['rerun', '--receipt', notReceipt], { home });
    expect(r3.code).toBe(2);
    expect(r3.stderr).toMatch(/not a Tender receipt/);

    const r4 = await runCli(['rerun', 'r-x', '--verify'], { home });
    expect(r4.code).toBe(2);
    expect(r4.stderr).toMatch(/--verify compares against a receipt/);
  });
});
