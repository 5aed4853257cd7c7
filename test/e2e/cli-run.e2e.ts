import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, processesMentioning, runCli, useTempHomes } from '../helpers/cli';

interface StoredRecord {
  seq: number;
  source: string;
  stream: string;
  line: string;
}

const newHomeOf = useTempHomes();
const newHome = () => newHomeOf().home;

/** What the example writes when run by hand with the same task environment. */
function runExampleByHand(extraEnv: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'tender-hand-'));
  try {
    cpSync(join(EXAMPLES, 'hello'), dir, { recursive: true });
    const r = spawnSync('sh', ['run.sh'], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TENDER_WORKSPACE: dir,
        PYTHONUNBUFFERED: '1',
        SEED: '1',
        ...extraEnv,
      },
    });
    return {
      code: r.status,
      stdout: r.stdout,
      metrics: readFileSync(join(dir, 'out', 'metrics.json')),
      loss: existsSync(join(dir, 'out', 'loss.csv'))
        ? readFileSync(join(dir, 'out', 'loss.csv'))
        : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function agentLog(home: string, runId: string, node = 'node-0'): StoredRecord[] {
  const text = readFileSync(join(home, 'datastream', runId, node, 'agent.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StoredRecord);
}

function lastJson(stdout: string) {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as {
    runId: string;
    status: string;
    outputsDir: string;
    nodes: { id: string; stage: string; exitCode: number | null; outputsDir: string }[];
  };
}

describe('tender run on the local provider', () => {
  it('runs the example to completion: outputs byte-identical, every log line once in order, node destroyed', async () => {
    const home = newHome();
    const r = await runCli(['run', join(EXAMPLES, 'hello', 'tender.toml'), '--json'], { home });
    expect(r.code, r.stderr).toBe(0);
    const out = lastJson(r.stdout);
    expect(out).toMatchObject({
      status: 'completed',
      nodes: [{ id: 'node-0', stage: 'destroyed', exitCode: 0 }],
    });

    const byHand = runExampleByHand({
      TENDER_JOB_ID: `${out.runId}.node-0`,
      TENDER_ATTEMPT: '0',
      TENDER_PARAM_LR: '3e-4',
      TENDER_PARAM_STEPS: '3000',
    });
    const landed = join(out.outputsDir, 'node-0', 'outputs');
    expect(readFileSync(join(landed, 'out', 'metrics.json')).equals(byHand.metrics)).toBe(true);
    expect(readFileSync(join(landed, 'out', 'loss.csv')).equals(byHand.loss!)).toBe(true);

    // The node's log: one record per line, seq 1, 2, 3 … without gaps or repeats, and the
    // run's stdout exactly what the workload prints, in order.
    const log = agentLog(home, out.runId);
    expect(log.map((x) => x.seq)).toEqual(log.map((_, i) => i + 1));
    const runStdout = log
      .filter((x) => x.source === 'run' && x.stream === 'stdout')
      .map((x) => x.line);
    expect(runStdout).toEqual(byHand.stdout.replace(/\n$/, '').split('\n'));
    expect(runStdout.length).toBeGreaterThan(2_000);
    // …and the terminal printed the same lines.
    expect(r.stdout).toContain(runStdout[runStdout.length - 1]);

    const status = await runCli(['status', '--json'], { home });
    const s = JSON.parse(status.stdout) as {
      runs: { nodes: { stage: string }[] }[];
      leases: { state: string }[];
      orphans: unknown[];
    };
    expect(s.runs[0]!.nodes[0]!.stage).toBe('destroyed');
    expect(s.leases.map((l) => l.state)).toEqual(['destroyed']);
    expect(s.orphans).toEqual([]);
    expect(readdirSync(join(home, 'local', 'leases'))).toEqual([]);
    expect(processesMentioning(join(home, 'local', 'leases'))).toEqual([]);
  });

  it("the README's quick start run twice: setup once, the second run says it was skipped", async () => {
    const home = newHome();
    const job = join(EXAMPLES, 'hello', 'tender.toml');
    const first = await runCli(['run', job], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/setup started/);
    const second = await runCli(['run', job], { home });
    expect(second.code, second.stderr).toBe(0);
    // Before, the example's setup made out/ in the workspace, which a kept environment
    // cannot hold: setup ran on every run, under a paragraph of advice.
    expect(second.stderr).toMatch(/setup skipped: environment for `echo setting up` is ready/);
    expect(second.stderr).not.toMatch(/setup started|not kept/);
    expect(`${first.stderr}${second.stderr}`).not.toMatch(/not kept/);
  });

  it('a failing job ends failed with exit code 1, outputs still collected, node torn down', async () => {
    const home = newHome();
    const r = await runCli(['run', join(EXAMPLES, 'hello-fail', 'tender.toml'), '--json'], {
      home,
    });
    expect(r.code, r.stderr).toBe(1);
    const out = lastJson(r.stdout);
    expect(out).toMatchObject({ status: 'failed', nodes: [{ stage: 'destroyed', exitCode: 3 }] });
    expect(r.stderr).toMatch(/failed: node-0: run exited 3/);
    const metrics = JSON.parse(
      readFileSync(join(out.outputsDir, 'node-0', 'outputs', 'out', 'metrics.json'), 'utf8'),
    );
    expect(metrics.failed).toBe(true);
    expect(readdirSync(join(home, 'local', 'leases'))).toEqual([]);
  });

  it('runs two nodes in one run, each with its own outputs, logs prefixed by node', async () => {
    const home = newHome();
    const r = await runCli(
      ['run', join(EXAMPLES, 'hello', 'tender.toml'), '--count', '2', '--json'],
      { home },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = lastJson(r.stdout);
    expect(out.nodes.map((n) => [n.id, n.stage, n.exitCode])).toEqual([
      ['node-0', 'destroyed', 0],
      ['node-1', 'destroyed', 0],
    ]);
    for (const n of ['node-0', 'node-1'])
      expect(existsSync(join(out.outputsDir, n, 'outputs', 'out', 'metrics.json'))).toBe(true);
    expect(r.stdout).toMatch(/^\[node-0\] /m);
    expect(r.stdout).toMatch(/^\[node-1\] /m);

    // One node's stored log, from a sequence number on (the two differ: one built the
    // setup's environment, the other found it ready).
    const tail = await runCli(['logs', out.runId, '--node', '1', '--from', '3000'], { home });
    expect(tail.code, tail.stderr).toBe(0);
    const seqs = agentLog(home, out.runId, 'node-1').length;
    expect(tail.stdout.trimEnd().split('\n')).toHaveLength(seqs - 3000 + 1);
    expect(tail.stdout).not.toMatch(/^\[node-/m);
  });

  it('--keep leaves the node up and listed (billed) after the job; down --all then destroys it', async () => {
    const home = newHome();
    const r = await runCli(['run', join(EXAMPLES, 'hello', 'tender.toml'), '--keep', '--json'], {
      home,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({
      status: 'completed',
      nodes: [{ stage: 'dormant' }],
    });
    expect(r.stderr).toMatch(/node kept warm/);
    expect(readdirSync(join(home, 'local', 'leases'))).toHaveLength(1);
    const down = await runCli(['down', '--all'], { home });
    expect(down.code, down.stderr).toBe(0);
    expect(readdirSync(join(home, 'local', 'leases'))).toEqual([]);
  });
});
