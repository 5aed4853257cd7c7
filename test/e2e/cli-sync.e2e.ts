// `tender sync` against a running job on the local provider: the built CLI as separate
// processes, the job reading a workspace file over and over.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliProcess, processesMentioning, runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();
const started: CliProcess[] = [];
afterEach(() => {
  for (const p of started.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

function cli(args: string[], home: string): CliProcess {
  const p = new CliProcess(args, { home });
  started.push(p);
  return p;
}

/** A job that prints msg.txt every 0.2 s until a file `stop` appears in its workspace
 *  (at most 5 minutes, so a failed test leaves nothing running for long). */
function catJob(root: string, marker: string): string {
  return writeJob(
    root,
    `cat-${marker}`,
    `[job]
name = "cat"
run = "i=0; while [ ! -f stop ] && [ $i -lt 1500 ]; do i=$((i+1)); cat msg.txt; sleep 0.2; done # ${marker}"
`,
    { 'msg.txt': 'hello v1\n' },
  );
}

function runIdOf(stderr: string): string {
  const m = /run (r-[a-z0-9]+)|detached from (r-[a-z0-9]+)/.exec(stderr);
  if (!m) throw new Error(`no run id in:\n${stderr}`);
  return (m[1] ?? m[2])!;
}

function eventLines(home: string, runId: string): string[] {
  const file = join(home, 'datastream', runId, 'node-0', 'events.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { line: string }).line);
}

describe('tender sync', () => {
  it('--watch pushes a local edit into the running job, which prints it', async () => {
    const { home, root } = newHome();
    const marker = `mk-sync-watch-${Date.now()}`;
    const job = catJob(root, marker);
    const workdir = dirname(job);
    const run = await runCli(['run', job, '--detach'], { home });
    expect(run.code, run.stderr).toBe(0);
    const runId = runIdOf(run.stderr);

    const watcher = cli(['sync', '--watch', runId], home);
    await watcher.waitFor('stderr', /watching .* for changes/);
    expect(watcher.stdout).toMatch(/^node-0: 0 changed, 0 deleted \(0 B\), 2 unchanged/);

    writeFileSync(join(workdir, 'msg.txt'), 'hello v2\n');
    await watcher.waitFor('stdout', /node-0: 1 changed, 0 deleted \(9 B\), 1 unchanged/);
    // The job's own way out: a file it looks for, pushed like any other.
    writeFileSync(join(workdir, 'stop'), '');
    await watcher.waitFor('stdout', /node-0: 1 changed, 0 deleted \(0 B\), 2 unchanged/);
    watcher.child.kill('SIGINT');
    const stopped = await watcher.exited;
    expect(stopped.code, stopped.stderr).toBe(0);
    // The watcher was the only Tender process, so it noted each sync in the node's events.
    expect(eventLines(home, runId)).toContain('synced: 1 changed, 0 deleted (9 B)');

    // Following the run picks it up again; the job saw the new content, then stopped.
    const logs = await runCli(['logs', '--follow', runId], { home });
    expect(logs.code, logs.stderr).toBe(0);
    const lines = logs.stdout.split('\n').filter((l) => l.startsWith('hello '));
    expect(lines[0]).toBe('hello v1');
    expect(lines.at(-1)).toBe('hello v2');
    const firstV2 = lines.indexOf('hello v2');
    expect(lines.slice(0, firstV2).every((l) => l === 'hello v1')).toBe(true);
    expect(lines.slice(firstV2).every((l) => l === 'hello v2')).toBe(true);

    const down = await runCli(['down', '--all'], { home });
    expect(down.code, down.stderr).toBe(0);
    expect(processesMentioning(marker)).toEqual([]);
  });

  it('syncs once beside the process that drives the run (a read-only core)', async () => {
    const { home, root } = newHome();
    const marker = `mk-sync-once-${Date.now()}`;
    const job = catJob(root, marker);
    const workdir = dirname(job);
    const driver = cli(['run', job], home);
    await driver.waitFor('stdout', /hello v1\n/);
    const runId = runIdOf(driver.stderr);

    writeFileSync(join(workdir, 'msg.txt'), 'hello v2\n');
    const once = await runCli(['sync', runId], { home });
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout).toMatch(/^node-0: 1 changed, 0 deleted \(9 B\), 1 unchanged, \d+ ms\n$/);
    await driver.waitFor('stdout', /hello v2\n/);

    writeFileSync(join(workdir, 'stop'), '');
    expect((await runCli(['sync', runId], { home })).code).toBe(0);
    const done = await driver.exited;
    expect(done.code, done.stderr).toBe(0);
    // A reader leaves the driver's datastream alone.
    expect(eventLines(home, runId).filter((l) => l.startsWith('synced:'))).toEqual([]);

    // The run has ended: nothing left to sync into.
    const late = await runCli(['sync', runId], { home });
    expect(late.code).toBe(3);
    expect(late.stderr).toMatch(/no node of run .* is running its job/);
    expect(processesMentioning(marker)).toEqual([]);
  });

  it('names an unknown run', async () => {
    const { home } = newHome();
    const r = await runCli(['sync', 'r-nosuchrun'], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no run r-nosuchrun/);
  });
});
