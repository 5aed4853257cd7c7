// Receipts through the CLI: a finished job's receipt.json beside its outputs, shown by
// `tender receipt` (and as JSON): what ran, its env by name only, the workspace it was
// given, each output's hash, where it ran and what the node probed. No secret value.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src-main/contract';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();
const SECRET = 'receipt-s3cret-value';

describe('tender receipt', () => {
  it('shows what a finished job ran, on what, from what, to what; never a secret', async () => {
    const { home, root } = newHome();
    const job = writeJob(
      root,
      'receipt',
      [
        '[job]',
        'name = "receipted"',
        'run = "mkdir -p out && echo 0.25 > out/loss.txt && echo $TENDER_PARAM_LR"',
        'outputs = ["out/loss.txt"]',
        'params = { LR = "3e-4" }',
        'env = { SEED = "1", TOKEN = { secret = true, from_env = "RECEIPT_TOKEN" } }',
        'constraints = ["os == linux"]',
      ].join('\n') + '\n',
      { 'train.py': 'print(1)\n' },
    );
    const ran = await runCli(['run', job], { home, env: { RECEIPT_TOKEN: SECRET } });
    expect(ran.code, ran.stderr).toBe(0);
    const runId = /run (r-[a-z0-9]+)/.exec(ran.stderr)![1]!;

    const shown = await runCli(['receipt', runId], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`${runId} node-0: completed \\(exit 0\\)`));
    expect(shown.stdout).toMatch(/params +LR=3e-4/);
    expect(shown.stdout).toMatch(/env +SEED, TOKEN \(secret\)/);
    expect(shown.stdout).toMatch(/outputs +1 files/);

    const json = await runCli(['receipt', runId, '--json'], { home });
    const r = JSON.parse(json.stdout) as Receipt;
    expect(r).toMatchObject({
      version: 1,
      runId,
      node: 'node-0',
      status: 'completed',
      exitCode: 0,
      job: { name: 'receipted', params: { LR: '3e-4' }, constraints: ['os == linux'] },
      placement: { provider: 'local', capabilities: { os: 'linux' } },
    });
    expect(r.job.env).toEqual([
      { name: 'SEED', secret: false },
      { name: 'TOKEN', secret: true },
    ]);
    expect(r.workspace.manifest).toMatch(/^[0-9a-f]{64}$/);
    expect(r.placement.hostKey).toMatch(/^hk1_/);
    const out = join(home, 'runs', runId, 'node-0');
    const loss = readFileSync(join(out, 'outputs', 'out', 'loss.txt'));
    expect(r.outputs.files).toEqual([
      {
        path: 'out/loss.txt',
        size: loss.length,
        sha256: createHash('sha256').update(loss).digest('hex'),
      },
    ]);
    expect(readFileSync(join(out, 'receipt.json'), 'utf8')).not.toContain(SECRET);

    // A --constraint the node fails: it never joins, and the run says which.
    const refused = await runCli(['run', job, '--constraint', 'gpu.count >= 1'], {
      home,
      env: { RECEIPT_TOKEN: SECRET },
    });
    expect(refused.code).toBe(3); // no node to run on: an infrastructure failure, not the job's
    expect(refused.stderr).toMatch(/gpu\.count >= 1 \(the node has no gpu\.count\)/);

    const none = await runCli(['receipt', 'r-nosuchrun'], { home });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no run r-nosuchrun/);
  });
});
