import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRunRequest, type RunArgs } from './run-request';

const H = 3_600_000;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(files: Record<string, string> = {}): string {
  const d = mkdtempSync(join(tmpdir(), 'tender-mcp-req-'));
  dirs.push(d);
  for (const [name, body] of Object.entries(files)) writeFileSync(join(d, name), body);
  return d;
}
const ctx = (home: string) => ({
  home,
  env: { TOKEN_SRC: 'tok-value-123' },
  coreOptions: { home },
});
const JOB = '[job]\nname = "j"\nrun = "echo hi"\n';

describe('what tender_run is asked to run', () => {
  const cases: [
    string,
    Partial<RunArgs>,
    string,
    (r: Awaited<ReturnType<typeof readRunRequest>>) => void,
  ][] = [
    [
      'job text, nothing else: local, one node, 2 h, the folder tender mcp runs in',
      { job: JOB },
      '',
      (r) => {
        expect(r.pool).toMatchObject({ provider: 'local', count: 1 });
        expect(r.policy.maxDurationMs).toBe(2 * H);
        expect(r.source).toBeUndefined();
      },
    ],
    [
      "the agent's max_duration",
      { job: JOB, max_duration: '30m' },
      '',
      (r) => expect(r.policy.maxDurationMs).toBe(30 * 60_000),
    ],
    [
      "the job's own max_duration when the agent gives none",
      { job: `${JOB}[policy]\nmax_duration = "6h"\nbudget_usd = 3\n` },
      '',
      (r) => expect(r.policy).toMatchObject({ maxDurationMs: 6 * H, budgetUsd: 3 }),
    ],
    [
      "the job's max_duration none: the default instead",
      { job: `${JOB}[policy]\nmax_duration = "none"\n` },
      '',
      (r) => expect(r.policy.maxDurationMs).toBe(2 * H),
    ],
    [
      'pool fields over the [pool] table, as tender run flags are',
      {
        job: `${JOB}[pool]\nprovider = "local"\ncount = 3\n`,
        provider: 'vastai',
        count: 2,
        gpu: 'RTX 4090',
        gpus: 2,
        max_price: 0.4,
      },
      '',
      (r) =>
        expect(r.pool).toMatchObject({
          provider: 'vastai',
          count: 2,
          gpu: 'RTX 4090',
          gpu_count: 2,
          max_price: 0.4,
        }),
    ],
    [
      'a grid makes a sweep',
      { job: JOB, grid: ['LR=1e-4,3e-4', 'SEED=1,2'] },
      '',
      (r) => expect(r.job.sweep?.axes).toEqual({ LR: ['1e-4', '3e-4'], SEED: ['1', '2'] }),
    ],
    [
      'a job file, relative to where tender mcp runs, its secrets read from its environment',
      { job_file: 'tender.toml' },
      '',
      (r) => {
        expect(r.source).toMatch(/tender\.toml$/);
        expect(r.job.env.TOKEN).toEqual({ secret: true, value: 'tok-value-123' });
      },
    ],
    ['neither job_file nor job', {}, 'one of the two', () => {}],
    ['both job_file and job', { job: JOB, job_file: 'tender.toml' }, 'one of the two', () => {}],
    [
      'max_duration none',
      { job: JOB, max_duration: 'none' },
      'max_duration must be a duration',
      () => {},
    ],
    ['a bad job', { job: '[job]\nname = "j"\n' }, 'job', () => {}],
    ['an unknown provider', { job: JOB, provider: 'aws' }, 'unknown provider "aws"', () => {}],
  ];
  it.each(cases)('%s', async (_name, args, refusal, check) => {
    const cwd = folder({
      'tender.toml': `${JOB}env = { TOKEN = { secret = true, from_env = "TOKEN_SRC" } }\n`,
    });
    const read = readRunRequest(args as RunArgs, ctx(join(cwd, 'home')), cwd);
    if (refusal) {
      await expect(read).rejects.toThrow(refusal);
      return;
    }
    check(await read);
  });

  it('refuses to push a file that looks like a secret, as tender run does', async () => {
    const cwd = folder({ '.env': 'API_KEY=x\n' });
    await expect(readRunRequest({ job: JOB }, ctx(join(cwd, 'home')), cwd)).rejects.toThrow(
      /looks like a secret/,
    );
  });
});
