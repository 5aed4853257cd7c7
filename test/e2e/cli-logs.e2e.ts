import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { until } from '../helpers/wait';

const newHome = useTempHomes();

function runIdOf(stderr: string): string {
  const m = /run (r-[a-z0-9]+)/.exec(stderr);
  if (!m) throw new Error(`no run id in:\n${stderr}`);
  return m[1]!;
}

/** The lines of `text` from the job (`line N`), checked to be 1…n in order, exactly once. */
function expectLines(text: string, n: number): void {
  const lines = text.split('\n').filter((l) => l.startsWith('line '));
  expect(lines.length).toBe(n);
  const wrong = lines.findIndex((l, i) => l !== `line ${i + 1}`);
  expect(wrong, `line ${wrong + 1} is "${lines[wrong]}"`).toBe(-1);
}

describe('tender logs', () => {
  it('prints a 120 000-line log whole, past the 100 000 records of one page; --tail 5 its last lines', async () => {
    const { home, root } = newHome();
    const job = writeJob(
      root,
      'many',
      `[job]\nname = "many"\nrun = "seq 1 120000 | sed 's/^/line /'"\n`,
    );
    const run = await runCli(['run', job], { home, timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    const runId = runIdOf(run.stderr);

    const all = await runCli(['logs', runId], { home });
    expect(all.code, all.stderr).toBe(0);
    expectLines(all.stdout, 120_000);
    const printed = all.stdout.trimEnd().split('\n');
    expect(printed).toContain('line 120000');

    const tail = await runCli(['logs', runId, '--tail', '5'], { home });
    expect(tail.code, tail.stderr).toBe(0);
    // The last 5 records of the node's log: the job's last lines, then the agent's exit
    // notice, exactly as the whole log ends.
    expect(tail.stdout.trimEnd().split('\n')).toEqual(printed.slice(-5));
    expect(tail.stdout).toMatch(/^line 119997\nline 119998\nline 119999\nline 120000\n/);

    const bad = await runCli(['logs', runId, '--tail', '0'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--tail must be a number of lines/);
  });

  it('shows a detached run’s lines printed while nobody was attached, fetched from its node', async () => {
    const { home, root } = newHome();
    const job = writeJob(
      root,
      'later',
      `[job]\nname = "later"\nrun = "sleep 1.5; seq 1 500 | sed 's/^/line /'"\n`,
    );
    const run = await runCli(['run', job, '--detach'], { home });
    expect(run.code, run.stderr).toBe(0);
    const runId = runIdOf(run.stderr);
    const leases = join(home, 'local', 'leases');
    await until(() =>
      readdirSync(leases).some((l) =>
        readFileSync(join(leases, l, 'logs', 'log.jsonl'), 'utf8').includes('run exited'),
      ),
    );

    const logs = await runCli(['logs', runId], { home });
    expect(logs.code, logs.stderr).toBe(0);
    expectLines(logs.stdout, 500);
    // Stored on the way: a second look needs nothing from the node and prints the same.
    const stored = readFileSync(join(home, 'datastream', runId, 'node-0', 'agent.jsonl'), 'utf8');
    expect(stored).toContain('"line":"line 500"');
    const again = await runCli(['logs', runId], { home });
    expect(again.stdout).toBe(logs.stdout);

    const down = await runCli(['down', '--all'], { home });
    expect(down.code, down.stderr).toBe(0);
  });
});
