import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, runCli, useTempHomes } from '../helpers/cli';

const newHome = useTempHomes();

describe('tender cost', () => {
  it('shows what was spent per run and lease, as text and as JSON', async () => {
    const { home } = newHome();
    const run = await runCli(
      ['run', join(EXAMPLES, 'hello', 'tender.toml'), '--budget', '5', '--json'],
      {
        home,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/cost: \$0\.0000 of a \$5\.00 budget/);
    const runId = (JSON.parse(run.stdout.trim().split('\n').pop()!) as { runId: string }).runId;

    const json = await runCli(['cost', '--json'], { home });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      totalUsd: number;
      billing: number;
      runs: { runId: string; usd: number; budgetUsd: number | null }[];
      leases: { runId: string; state: string; reason: string | null }[];
    };
    expect(report.totalUsd).toBe(0); // the local provider is free
    expect(report.billing).toBe(0);
    expect(report.runs).toEqual([{ runId, jobName: 'hello', usd: 0, budgetUsd: 5, leases: 1 }]);
    expect(report.leases[0]).toMatchObject({ runId, state: 'destroyed', reason: 'job completed' });

    const text = await runCli(['cost', '--since', '1d'], { home });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/spent in the last 1d: \$0\.0000/);
    expect(text.stdout).toMatch(/billing now: nothing/);
    expect(text.stdout).toContain(runId);
  });

  it('refuses a --since that is not a duration, changing nothing', async () => {
    const { home } = newHome();
    const r = await runCli(['cost', '--since', 'last week'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--since must be a duration such as 90s, 20m, 6h or 1h30m/);
  });
});
