// The built agent as real processes in a temp node folder: start, attach, supervise,
// logs with seq, cancel, task env, secrets. Build first: `npm run build:agent`.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentLogRecord, Phase, PhaseState, StartOutput } from '../../src-agent/wire/protocol';
import {
  AttachClient,
  agentBundlePath,
  isGroupAlive,
  isRunning,
  killAgent,
  markedJson,
  runAgent,
} from '../helpers/agent-bundle';
import { eventually } from '../helpers/wait';

const dirs: string[] = [];
const clients: AttachClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.kill();
  const done = dirs.splice(0);
  for (const d of done) await killAgent(d); // all killed before any folder is removed
  for (const d of done) await rm(d, { recursive: true, force: true });
});

async function nodeDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'tender-agent-'));
  dirs.push(d);
  return d;
}

async function start(dir: string, extra: string[] = []): Promise<StartOutput> {
  const res = await runAgent(['start', '--dir', dir, ...extra]);
  expect(res.code, res.stderr).toBe(0);
  return markedJson<StartOutput>(res.stdout);
}

function attach(dir: string): AttachClient {
  const c = new AttachClient(dir);
  clients.push(c);
  return c;
}

async function startedAgent(): Promise<{ dir: string; client: AttachClient }> {
  const dir = await nodeDir();
  await start(dir);
  const client = attach(dir);
  await client.request('configure', { jobId: 'job-7', attempt: 1 });
  return { dir, client };
}

function phaseExited(phase: Phase) {
  return (c: AttachClient) =>
    c.events.some((e) => e.ev === 'phase' && e.state.phase === phase && e.state.state === 'exited');
}

function lastPhase(c: AttachClient, phase: Phase): PhaseState {
  const states = c.events.flatMap((e) =>
    e.ev === 'phase' && e.state.phase === phase ? [e.state] : [],
  );
  return states.at(-1) as PhaseState;
}

function fileRecords(dir: string): AgentLogRecord[] {
  return readFileSync(join(dir, 'logs', 'log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AgentLogRecord);
}

function linesOf(records: AgentLogRecord[], src: string): string[] {
  return records.filter((r) => r.src === src && r.stream !== 'info').map((r) => r.line);
}

function daemonsFor(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        return argv.includes('daemon') && argv.includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('agent lifecycle', () => {
  it('prints its version after the marker', async () => {
    const res = await runAgent(['version']);
    expect(res.code).toBe(0);
    expect(markedJson(res.stdout)).toEqual({ version: expect.any(String), protocol: 1 });
  });

  it('runs one daemon per folder when started twice at once', async () => {
    const dir = await nodeDir();
    const [a, b] = await Promise.all([start(dir), start(dir)]);
    expect(a.pid).toBe(b.pid);
    expect([a.alreadyRunning, b.alreadyRunning].sort()).toEqual([false, true]);
    expect(daemonsFor(dir)).toEqual([a.pid]);
    expect(readFileSync(join(dir, 'agent.lock'), 'utf8').trim()).toBe(String(a.pid));
    // The socket is what the bootstrap reaches straight through ssh (no `attach` process).
    expect(await start(dir)).toEqual({ pid: a.pid, alreadyRunning: true, socket: a.socket });
    expect(a.socket).toMatch(/agent\.sock$/);
  });

  it('answers hello over attach with identity, capabilities and the key it recomputed from its declaration', async () => {
    const dir = await nodeDir();
    // The second golden host-key vector: the agent computes the key itself.
    const decl = Buffer.from(JSON.stringify({ runner: 'process' })).toString('base64url');
    const { pid } = await start(dir, ['--agent-id', 'agent-42', '--host-decl', decl]);
    const client = attach(dir);
    const hello = await client.request('hello');
    expect(hello).toMatchObject({
      agentId: 'agent-42',
      hostKey: 'hk1_jjml3vzthmtzu76a',
      protocol: 1,
      pid,
    });
    expect(hello.capabilities).toMatchObject({
      os: process.platform,
      'node.version': expect.any(String),
    });
    expect(hello.capabilities['cpu.cores']).toBeGreaterThan(0);
    expect(hello.capabilities['disk.avail']).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(dir, 'agent.json'), 'utf8'))).toMatchObject({
      pid,
      agentId: 'agent-42',
    });
    expect(JSON.parse(readFileSync(join(dir, 'host.json'), 'utf8'))).toEqual({ runner: 'process' });
    expect(await client.close()).toBe(0);
  });

  it('serves a folder whose socket path would be too long from tmpdir', async () => {
    const dir = join(await nodeDir(), 'n'.repeat(120));
    dirs.push(dir);
    const { pid } = await start(dir);
    const info = JSON.parse(readFileSync(join(dir, 'agent.json'), 'utf8')) as { socket: string };
    expect(info.socket.startsWith(tmpdir())).toBe(true);
    expect((await attach(dir).request('hello')).pid).toBe(pid);
    const again = await runAgent(['daemon', '--dir', dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`already running (pid ${pid})`);
  });

  it('answers a bad request with an error and keeps serving', async () => {
    const { client } = await startedAgent();
    expect(await client.send('start', { phase: 'train', command: 'x' })).toMatchObject({
      ok: false,
      error: { code: 'bad_request' },
    });
    expect(await client.send('fly')).toMatchObject({ ok: false, error: { code: 'unknown_op' } });
    expect(await client.request('ping')).toEqual({});
  });

  it('exits 3 from attach when no daemon answers', async () => {
    const dir = await nodeDir();
    const res = await runAgent(['attach', '--dir', dir]);
    expect(res.code).toBe(3);
    expect(res.stderr).toContain('start');
  });

  it('refuses start before configure', async () => {
    const dir = await nodeDir();
    await start(dir);
    const client = attach(dir);
    expect(await client.send('start', { phase: 'run', command: 'true' })).toMatchObject({
      ok: false,
      error: { code: 'not_configured' },
    });
  });

  it('shuts down on request, removing socket and lock, and continues seq when restarted', async () => {
    const { dir, client } = await startedAgent();
    await client.request('start', { phase: 'run', command: 'echo before' });
    await client.request('subscribe', { fromSeq: 1 });
    await client.waitFor(phaseExited('run'));
    await client.request('shutdown', { graceMs: 1000 });
    expect(await client.exited).toBe(0);
    expect(existsSync(join(dir, 'agent.sock'))).toBe(false);
    expect(existsSync(join(dir, 'agent.lock'))).toBe(false);
    const lastBefore = fileRecords(dir).at(-1)!.seq;
    await start(dir);
    const again = attach(dir);
    expect((await again.request('hello')).lastSeq).toBeGreaterThan(lastBefore);
    expect(fileRecords(dir).map((r) => r.seq)).toEqual(fileRecords(dir).map((_, i) => i + 1));
    expect((await again.request('status')).phases.run).toMatchObject({ state: 'exited', code: 0 });
  });
});

describe('agent supervision and logs', () => {
  it('runs setup then run, records exit codes, and does not start a phase twice', async () => {
    const { dir, client } = await startedAgent();
    await client.request('subscribe', { fromSeq: 1 });
    const setup = await client.request('start', {
      phase: 'setup',
      command: 'echo preparing; echo warn >&2; pwd',
    });
    expect(setup.alreadyStarted).toBe(false);
    await client.waitFor(phaseExited('setup'));
    const run = await client.request('start', {
      phase: 'run',
      command: 'printf "10%%\\r50%%\\r100%%\\n"; printf "no newline"; exit 3',
    });
    await client.waitFor(phaseExited('run'));
    expect(await client.request('start', { phase: 'run', command: 'echo again' })).toEqual({
      pid: run.pid,
      alreadyStarted: true,
    });

    const records = client.records();
    // stdout and stderr are separate pipes: order holds within each, not across them.
    const setupOut = records
      .filter((r) => r.src === 'setup' && r.stream === 'stdout')
      .map((r) => r.line);
    expect(setupOut).toEqual(['preparing', join(dir, 'workspace')]);
    expect(
      records.filter((r) => r.src === 'setup' && r.stream === 'stderr').map((r) => r.line),
    ).toEqual(['warn']);
    expect(linesOf(records, 'run')).toEqual(['10%\r50%\r100%', 'no newline']);
    expect(lastPhase(client, 'setup')).toMatchObject({
      state: 'exited',
      code: 0,
      signal: null,
      cancelled: false,
    });
    const runFile = JSON.parse(readFileSync(join(dir, 'phases', 'run.json'), 'utf8')) as PhaseState;
    expect(runFile).toMatchObject({
      phase: 'run',
      state: 'exited',
      code: 3,
      signal: null,
      pid: run.pid,
    });
    expect(runFile.exitedAt).toBeGreaterThanOrEqual(runFile.startedAt);
    expect(await client.request('status')).toMatchObject({
      phases: { setup: { code: 0 }, run: { code: 3 } },
      hasWorkspace: true,
    });
  });

  it('says with the run’s exit its last log record, a glance of the outputs configure named and the cache', async () => {
    const dir = await nodeDir();
    await start(dir);
    const client = attach(dir);
    await client.request('configure', { jobId: 'job-8', attempt: 0, outputs: ['out/'] });
    await client.request('subscribe', { fromSeq: 1 });
    await client.request('start', {
      phase: 'run',
      command: 'mkdir -p out && printf abc > out/a.txt && echo wrote',
    });
    await client.waitFor(phaseExited('run'));
    const exit = lastPhase(client, 'run');
    const records = client.records();
    const exitLine = records.find((r) => r.src === 'agent' && r.line === 'run exited with code 0');
    expect(exit.seq).toBeGreaterThanOrEqual(exitLine!.seq);
    expect(Math.max(...records.filter((r) => r.seq <= exit.seq!).map((r) => r.seq))).toBe(exit.seq);
    expect(exit.glance).toMatchObject({ files: 1, bytes: 3 });
    expect(exit.glance).toEqual(await client.request('outputs.glance', { paths: ['out/'] }));
    const { cache } = await client.request('status');
    expect(exit.cache).toMatchObject({ path: cache!.path, bytes: cache!.bytes });
    // Kept in the phase's file too: a client that subscribes later reads the same.
    const runFile = JSON.parse(readFileSync(join(dir, 'phases', 'run.json'), 'utf8')) as PhaseState;
    expect(runFile).toMatchObject({ seq: exit.seq, glance: exit.glance });
  });

  it('runs the phases again for a new attempt, and not while one runs', async () => {
    const { client } = await startedAgent();
    await client.request('subscribe', { fromSeq: 1 });
    await client.request('start', { phase: 'run', command: 'echo first' });
    await client.waitFor(phaseExited('run'));
    // Configure says the phase states it leaves (the app needs no status after it): the
    // same attempt keeps them, a new one clears them.
    const again = await client.request('configure', { jobId: 'job-7', attempt: 1 });
    expect(again.phases).toMatchObject({ run: { state: 'exited', code: 0 } });
    expect(
      (await client.request('start', { phase: 'run', command: 'echo x' })).alreadyStarted,
    ).toBe(true);

    expect(await client.request('configure', { jobId: 'job-7', attempt: 2 })).toEqual({
      phases: {},
    });
    const second = await client.request('start', {
      phase: 'run',
      command: 'echo second; sleep 300',
    });
    expect(second.alreadyStarted).toBe(false);
    await client.waitFor((c) => linesOf(c.records(), 'run').includes('second'));
    expect(await client.send('configure', { jobId: 'job-7', attempt: 3 })).toMatchObject({
      ok: false,
      error: { code: 'busy' },
    });
  });

  it('gives each record once, in order, and resumes after a disconnect with exactly the rest', async () => {
    const { dir, client } = await startedAgent();
    const gate = join(dir, 'workspace', 'gate');
    await client.request('start', {
      phase: 'run',
      command: `for i in $(seq 1 500); do echo a$i; done; while [ ! -f gate ]; do sleep 0.02; done; for i in $(seq 1 500); do echo b$i; done`,
    });
    await client.request('subscribe', { fromSeq: 1 });
    await client.waitFor((c) => c.records().some((r) => r.line === 'a500'));
    const first = client.records();
    client.kill(); // an abrupt disconnect, as when the link drops
    await client.exited;
    writeFileSync(gate, '');

    const resumeAt = first.at(-1)!.seq + 1;
    const second = attach(dir);
    await second.request('subscribe', { fromSeq: resumeAt });
    await second.waitFor(phaseExited('run'));
    const rest = second.records();
    expect(first.map((r) => r.seq)).toEqual(first.map((_, i) => i + 1));
    expect(rest.map((r) => r.seq)).toEqual(rest.map((_, i) => resumeAt + i));
    const all = [...first, ...rest];
    expect(all).toEqual(fileRecords(dir).slice(0, all.length));
    const expected = [
      ...Array.from({ length: 500 }, (_, i) => `a${i + 1}`),
      ...Array.from({ length: 500 }, (_, i) => `b${i + 1}`),
    ];
    expect(linesOf(all, 'run')).toEqual(expected);
  });

  it('keeps up with a job printing 20 000 lines fast', async () => {
    const { dir, client } = await startedAgent();
    await client.request('subscribe', { fromSeq: 1 });
    await client.request('start', { phase: 'run', command: 'seq 1 20000' });
    await client.waitFor(phaseExited('run'));
    const expected = Array.from({ length: 20000 }, (_, i) => String(i + 1));
    expect(linesOf(client.records(), 'run')).toEqual(expected);
    expect(linesOf(fileRecords(dir), 'run')).toEqual(expected);
    const seqs = client.records().map((r) => r.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('cancels a job that traps SIGTERM, and its children', async () => {
    const { client } = await startedAgent();
    await client.request('subscribe', { fromSeq: 1 });
    const { pid } = await client.request('start', {
      phase: 'run',
      command: `trap 'echo got TERM; exit 7' TERM; sleep 300 & echo ready; wait`,
    });
    await client.waitFor((c) => c.records().some((r) => r.line === 'ready'));
    await client.request('cancel', { phase: 'run', graceMs: 30_000 });
    await client.waitFor(phaseExited('run'));
    expect(lastPhase(client, 'run')).toMatchObject({
      state: 'exited',
      code: 7,
      signal: null,
      cancelled: true,
    });
    expect(linesOf(client.records(), 'run')).toContain('got TERM');
    await eventually(() => !isGroupAlive(pid));
  });

  it('stops its job and exits when its node folder is removed under it (a destroy that raced its start)', async () => {
    const { dir, client } = await startedAgent();
    await client.request('configure', { jobId: 'j', attempt: 0 });
    const { pid } = await client.request('start', { phase: 'run', command: 'sleep 300' });
    await rm(dir, { recursive: true, force: true });
    await eventually(() => daemonsFor(dir).length === 0 && !isRunning(pid));
  });

  it('kills a job that ignores SIGTERM after the grace, children included', async () => {
    const { dir, client } = await startedAgent();
    await client.request('subscribe', { fromSeq: 1 });
    const { pid } = await client.request('start', {
      phase: 'run',
      command: `trap '' TERM; sleep 300 & sleep 301 & echo ready; wait`,
    });
    expect(existsSync(join(dir, 'pids', String(pid)))).toBe(true);
    await client.waitFor((c) => c.records().some((r) => r.line === 'ready'));
    await client.request('cancel', { graceMs: 300 });
    await client.waitFor(phaseExited('run'));
    expect(lastPhase(client, 'run')).toMatchObject({
      code: null,
      signal: 'SIGKILL',
      cancelled: true,
    });
    expect(client.records().some((r) => r.src === 'agent' && r.line.includes('SIGKILL'))).toBe(
      true,
    );
    await eventually(() => !isGroupAlive(pid));
    await eventually(() => !existsSync(join(dir, 'pids', String(pid))));
  });
});

describe('agent task environment', () => {
  it('sets the task contract and drops overrides of it, naming them only', async () => {
    const dir = await nodeDir();
    await start(dir);
    const client = attach(dir);
    await client.request('configure', {
      jobId: 'job-9',
      attempt: 3,
      env: { FOO: 'bar', TENDER_JOB_ID: 'spoofed-id', PATH: '/nowhere' },
      params: { 'learning-rate': '0.01' },
    });
    await client.request('subscribe', { fromSeq: 1 });
    await client.request('start', { phase: 'run', command: 'env' });
    await client.waitFor(phaseExited('run'));
    const env = new Map(
      linesOf(client.records(), 'run').map((l) => [
        l.slice(0, l.indexOf('=')),
        l.slice(l.indexOf('=') + 1),
      ]),
    );
    expect(Object.fromEntries(env)).toMatchObject({
      FOO: 'bar',
      TENDER_JOB_ID: 'job-9',
      TENDER_ATTEMPT: '3',
      TENDER_WORKSPACE: join(dir, 'workspace'),
      TENDER_OUTPUT: join(dir, 'output'),
      TENDER_PARAM_LEARNING_RATE: '0.01',
      PYTHONUNBUFFERED: '1',
    });
    expect(env.get('PATH')).not.toBe('/nowhere');
    const notice = client
      .records()
      .find((r) => r.src === 'agent' && r.line.includes('TENDER_JOB_ID'));
    expect(notice?.line).toContain('PATH');
    expect(notice?.line).not.toContain('spoofed-id');
    expect(JSON.parse(readFileSync(join(dir, 'job.json'), 'utf8'))).toMatchObject({
      jobId: 'job-9',
      attempt: 3,
    });
  });

  it('writes a printed secret as *** and keeps it out of every file', async () => {
    const dir = await nodeDir();
    await start(dir);
    const client = attach(dir);
    const secret = 'hunter2-very-secret';
    await client.request('configure', { jobId: 'j', attempt: 1, secretEnv: { API_TOKEN: secret } });
    await client.request('subscribe', { fromSeq: 1 });
    await client.request('start', {
      phase: 'run',
      command: `echo "token=$API_TOKEN"; echo "$API_TOKEN" >&2`,
    });
    await client.waitFor(phaseExited('run'));
    expect(linesOf(client.records(), 'run')).toEqual(['token=***', '***']);
    for (const file of ['logs/log.jsonl', 'job.json', 'phases/run.json', 'agent.log']) {
      expect(readFileSync(join(dir, file), 'utf8')).not.toContain(secret);
    }
    expect(readFileSync(join(dir, 'logs', 'log.jsonl'), 'utf8')).toContain('token=***');
  });
});

it('finds the bundle', () => {
  expect(agentBundlePath()).toMatch(/tender-agent\.cjs$/);
});
