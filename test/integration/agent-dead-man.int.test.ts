// The dead-man switch of the built agent, as real processes: a node that loses its app, runs
// out of budget or time, or idles destroys itself through a fake Vast.ai API on 127.0.0.1
// (or removes the run's files). Build first: `npm run build:agent`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  LeaseParams,
  AgentLogRecord,
  PhaseState,
  StartOutput,
  TeardownRecord,
} from '../../src-agent/wire/protocol';
import {
  AttachClient,
  agentBundlePath,
  isGroupAlive,
  isRunning,
  killAgent,
  markedJson,
  runProcess,
} from '../helpers/agent-bundle';
import { eventually } from '../helpers/wait';
import { FakeInstanceApi } from '../helpers/fake-instance-api';

const INSTANCE_ID = '4242';
const INSTANCE_KEY = 'instance-key-0123456789abcdef';
/** However busy the machine, a deadline is met within this past its check period. */
const SLACK_MS = 2_000;

const dirs: string[] = [];
const clients: AttachClient[] = [];
const apis: FakeInstanceApi[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.kill();
  const done = dirs.splice(0);
  for (const d of done) await killAgent(join(d, 'node'));
  for (const d of done) await rm(d, { recursive: true, force: true });
  for (const a of apis.splice(0)) await a.close();
});

interface Node {
  dir: string;
  home: string;
  pid: number;
  client: AttachClient;
}

/** A temp folder holding the node folder and a HOME for the daemon. */
async function nodeRoot(): Promise<{ dir: string; home: string }> {
  const root = await mkdtemp(join(tmpdir(), 'tender-deadman-'));
  dirs.push(root);
  const home = join(root, 'home');
  mkdirSync(home);
  return { dir: join(root, 'node'), home };
}

/** Starts the daemon with HOME set and no instance credential but `env`'s. */
async function startAgent(root: { dir: string; home: string }, env: string[] = []): Promise<Node> {
  const res = await runProcess('/usr/bin/env', [
    '-u',
    'CONTAINER_ID',
    '-u',
    'CONTAINER_API_KEY',
    `HOME=${root.home}`,
    ...env,
    process.execPath,
    agentBundlePath(),
    'start',
    '--dir',
    root.dir,
  ]);
  expect(res.code, res.stderr).toBe(0);
  const { pid } = markedJson<StartOutput>(res.stdout);
  const client = attach(root.dir);
  await client.request('configure', { jobId: 'job-1', attempt: 1 });
  await client.request('subscribe', { fromSeq: 1 });
  return { ...root, pid, client };
}

function attach(dir: string): AttachClient {
  const c = new AttachClient(dir);
  clients.push(c);
  return c;
}

async function fakeApi(): Promise<FakeInstanceApi> {
  const api = await FakeInstanceApi.start();
  apis.push(api);
  return api;
}

/** A NUL-separated env file, as /proc/<pid>/environ is. */
function writeEnviron(path: string, vars: Record<string, string>): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(
    path,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${v}\0`)
      .join(''),
  );
}

function vastLease(api: FakeInstanceApi, over: Partial<LeaseParams> = {}): LeaseParams {
  return {
    graceMs: 800,
    afterJob: 'destroy',
    teardown: { kind: 'vastai', apiUrl: api.url, envFiles: ['~/missing', '~/.vast/environ'] },
    ...over,
  };
}

function teardowns(c: AttachClient): TeardownRecord[] {
  return c.events.flatMap((e) => (e.ev === 'teardown' ? [e.record] : []));
}

function reached(state: TeardownRecord['state']) {
  return (c: AttachClient) => teardowns(c).some((r) => r.state === state);
}

function lastPhase(c: AttachClient, phase: 'setup' | 'run'): PhaseState | undefined {
  return c.events
    .flatMap((e) => (e.ev === 'phase' && e.state.phase === phase ? [e.state] : []))
    .at(-1);
}

function fileRecords(dir: string): AgentLogRecord[] {
  return readFileSync(join(dir, 'logs', 'log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AgentLogRecord);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends the lease; returns when it was sent and answered (the switch counts in between). */
async function renew(c: AttachClient, params: LeaseParams) {
  const sentAt = Date.now();
  const result = await c.request('lease', params);
  return { sentAt, answeredAt: Date.now(), result };
}

describe('dead-man switch on Vast.ai', () => {
  it('never stops a running job because the app is away; at max duration it kills the job and destroys the instance with its own key', async () => {
    const api = await fakeApi();
    const root = await nodeRoot();
    writeEnviron(join(root.home, '.vast', 'environ'), {
      PATH: '/usr/bin',
      CONTAINER_ID: INSTANCE_ID,
      CONTAINER_API_KEY: INSTANCE_KEY,
    });
    const { dir, client } = await startAgent(root);
    const bystander = attach(dir); // never subscribes: still told of the teardown
    await bystander.request('ping');
    const { pid: jobPid } = await client.request('start', { phase: 'run', command: 'sleep 600' });

    // The app goes away for 3× the grace while the job runs: nothing fires.
    await renew(client, vastLease(api, { graceMs: 300 }));
    await sleep(900);
    expect(teardowns(client)).toEqual([]);
    expect(lastPhase(client, 'run')?.state).toBe('running');
    const last = await renew(client, vastLease(api, { graceMs: 300, maxDurationMs: 800 }));
    expect(last.result).toEqual({ firesInMs: 800, cause: 'max_duration' });
    await client.waitFor(reached('destroy_requested'));

    const records = teardowns(client);
    expect(records.map((r) => r.state)).toEqual([
      'stopping_job',
      'destroying',
      'destroy_requested',
    ]);
    const record = records.at(-1)!;
    expect(record).toMatchObject({ cause: 'max_duration', state: 'destroy_requested' });
    expect(record.reason).toBe('max duration reached');
    expect(record.at - last.sentAt).toBeGreaterThanOrEqual(800);
    expect(record.at - last.answeredAt).toBeLessThan(800 + SLACK_MS);
    await bystander.waitFor(reached('destroy_requested'));
    expect(teardowns(bystander)).toEqual(records);

    expect(lastPhase(client, 'run')).toMatchObject({
      state: 'exited',
      cancelled: true,
      signal: 'SIGTERM',
    });
    await eventually(() => !isGroupAlive(jobPid));
    expect(api.requests).toEqual([
      {
        method: 'DELETE',
        path: `/api/v0/instances/${INSTANCE_ID}/`,
        authorization: `Bearer ${INSTANCE_KEY}`,
        body: '{}',
      },
    ]);
    expect((await client.request('status')).teardown).toEqual(record);
    expect((await client.request('hello')).teardown).toEqual(record);
    expect(JSON.parse(readFileSync(join(dir, 'teardown.json'), 'utf8'))).toMatchObject(record);
    expect(await client.send('lease', vastLease(api))).toMatchObject({
      ok: false,
      error: { code: 'shutting_down' },
    });
    expect(await client.send('start', { phase: 'setup', command: 'true' })).toMatchObject({
      ok: false,
      error: { code: 'shutting_down' },
    });
    const lines = fileRecords(dir).map((r) => r.line);
    expect(lines).toContain(`dead-man switch: ${record.reason}; tearing this node down`);
    for (const file of ['logs/log.jsonl', 'teardown.json', 'agent.log']) {
      expect(readFileSync(join(dir, file), 'utf8')).not.toContain(INSTANCE_KEY);
    }
  });

  it('retries the destroy through 500 and 429 answers, logging each failure without the key', async () => {
    const api = await fakeApi();
    api.failures = [500, 429];
    const { dir, client } = await startAgent(await nodeRoot(), [
      `CONTAINER_ID=${INSTANCE_ID}`,
      `CONTAINER_API_KEY=${INSTANCE_KEY}`,
    ]);
    await renew(
      client,
      vastLease(api, { graceMs: 300, teardown: { kind: 'vastai', apiUrl: api.url, envFiles: [] } }),
    );
    await client.waitFor(reached('destroy_requested'));

    expect(api.requests.map((r) => [r.method, r.path, r.authorization])).toEqual(
      Array.from({ length: 3 }, () => [
        'DELETE',
        `/api/v0/instances/${INSTANCE_ID}/`,
        `Bearer ${INSTANCE_KEY}`,
      ]),
    );
    const failures = fileRecords(dir).filter((r) => r.src === 'agent' && r.stream === 'stderr');
    expect(failures.map((r) => r.line)).toEqual([
      expect.stringMatching(/attempt 1\): HTTP 500.*retrying in 1 s$/),
      expect.stringMatching(/attempt 2\): HTTP 429.*retrying in 2 s$/),
    ]);
    expect(readFileSync(join(dir, 'logs', 'log.jsonl'), 'utf8')).not.toContain(INSTANCE_KEY);
  });

  it('continues a begun destroy after the daemon is killed and started again', async () => {
    const api = await fakeApi();
    api.failAllWith = 503;
    const root = await nodeRoot();
    const env = [`CONTAINER_ID=${INSTANCE_ID}`, `CONTAINER_API_KEY=${INSTANCE_KEY}`];
    const first = await startAgent(root, env);
    await renew(first.client, vastLease(api, { graceMs: 300 }));
    await first.client.waitFor(reached('destroying'));
    await eventually(() => api.requests.length >= 1);
    const begun = teardowns(first.client).at(-1)!;
    process.kill(first.pid, 'SIGKILL');
    await eventually(() => !isRunning(first.pid));

    api.failAllWith = null;
    const seenBefore = api.requests.length;
    const second = await startAgent(root, env);
    expect(second.pid).not.toBe(first.pid);
    const hello = await second.client.request('hello');
    expect(hello.teardown).toMatchObject({
      cause: 'unreachable',
      at: begun.at,
      reason: begun.reason,
    });
    expect(['destroying', 'destroy_requested']).toContain(hello.teardown?.state);
    await eventually(() => api.requests.length > seenBefore);
    let status = await second.client.request('status');
    while (status.teardown?.state !== 'destroy_requested') {
      await sleep(50);
      status = await second.client.request('status');
    }
    expect(api.requests.at(-1)?.authorization).toBe(`Bearer ${INSTANCE_KEY}`);
  });

  it('falls back to removing the files, and says the instance still bills, without a credential', async () => {
    const api = await fakeApi();
    const { dir, client, pid } = await startAgent(await nodeRoot());
    await client.request('start', {
      phase: 'setup',
      command: 'echo w > file; echo o > "$TENDER_OUTPUT/o"',
    });
    await eventually(() => lastPhase(client, 'setup')?.state === 'exited');
    await renew(client, vastLease(api, { graceMs: 300 }));
    await client.waitFor(reached('failed'));
    expect(await client.exited).toBe(0);

    const record = teardowns(client).at(-1)!;
    expect(teardowns(client).map((r) => r.state)).toEqual(['stopping_job', 'failed']);
    expect(record.error).toContain('CONTAINER_API_KEY');
    expect(record.error).toContain('KEEPS BILLING');
    expect(record.error).toContain('~/.vast/environ');
    expect(api.requests).toEqual([]);
    expect(existsSync(join(dir, 'workspace'))).toBe(false);
    expect(existsSync(join(dir, 'output'))).toBe(false);
    expect(
      fileRecords(dir).some((r) => r.stream === 'stderr' && r.line.includes('KEEPS BILLING')),
    ).toBe(true);
    expect(readFileSync(join(dir, 'agent.log'), 'utf8')).toContain('KEEPS BILLING');
    await eventually(() => !isRunning(pid));
  });
});

describe('dead-man switch deadlines', () => {
  it.each([
    ['budget', { budgetMs: 1_000 }],
    ['max_duration', { maxDurationMs: 1_000 }],
  ] as const)('fires %s at its deadline, within one check', async (cause, deadline) => {
    const { client } = await startAgent(await nodeRoot());
    const checkMs = 100;
    const lease = await renew(client, {
      graceMs: 60_000,
      afterJob: 'keep_warm',
      teardown: { kind: 'remove-files' },
      checkMs,
      ...deadline,
    });
    expect(lease.result).toEqual({ firesInMs: 1_000, cause });
    await client.waitFor(reached('files_removed'));
    const record = teardowns(client).at(-1)!;
    expect(record.cause).toBe(cause);
    expect(record.at - lease.sentAt).toBeGreaterThanOrEqual(1_000);
    expect(record.at - lease.answeredAt).toBeLessThan(1_000 + checkMs + SLACK_MS);
  });

  it('destroys a collected node a grace after collection, renewals or not', async () => {
    const api = await fakeApi();
    const { client } = await startAgent(await nodeRoot(), [
      `CONTAINER_ID=7`,
      `CONTAINER_API_KEY=${INSTANCE_KEY}`,
    ]);
    const lease = vastLease(api, { graceMs: 800, checkMs: 100 });
    await renew(client, lease);
    const collected = await renew(client, { ...lease, collected: true });
    expect(collected.result).toEqual({ firesInMs: 800, cause: 'unreachable' }); // a tie: renewal first
    while (teardowns(client).length === 0) {
      await sleep(150);
      await client.send('lease', { ...lease, collected: true });
    }
    await client.waitFor(reached('destroy_requested'));
    const record = teardowns(client).at(-1)!;
    expect(record).toMatchObject({
      cause: 'job_done',
      reason: 'job finished and outputs collected',
    });
    expect(record.at - collected.sentAt).toBeGreaterThanOrEqual(800);
    expect(record.at - collected.answeredAt).toBeLessThan(800 + 100 + SLACK_MS);
  });

  it('fires idle after the run ends with keep_warm', async () => {
    const api = await fakeApi();
    const root = await nodeRoot();
    const { client } = await startAgent(root, [
      `CONTAINER_ID=7`,
      `CONTAINER_API_KEY=${INSTANCE_KEY}`,
    ]);
    await client.request('start', { phase: 'run', command: 'sleep 1' });
    const idle = vastLease(api, {
      graceMs: 60_000,
      afterJob: 'keep_warm',
      idleTimeoutMs: 800,
      checkMs: 100,
    });
    expect((await renew(client, idle)).result.cause).toBe('unreachable'); // no idle while it runs
    await client.waitFor(reached('destroy_requested'));
    const exited = lastPhase(client, 'run')!;
    expect(exited).toMatchObject({ state: 'exited', code: 0, cancelled: false });
    const record = teardowns(client).at(-1)!;
    expect(record.cause).toBe('idle');
    expect(record.reason).toMatch(/^idle for 0\.\d s with no job running$/);
    expect(record.at - exited.exitedAt!).toBeGreaterThanOrEqual(800);
    expect(record.at - exited.exitedAt!).toBeLessThan(800 + 100 + SLACK_MS);
    expect(api.requests.map((r) => r.path)).toEqual(['/api/v0/instances/7/']);
  });

  it('holds idle off while the app says it uses the node', async () => {
    const api = await fakeApi();
    const { client } = await startAgent(await nodeRoot(), [
      `CONTAINER_ID=7`,
      `CONTAINER_API_KEY=${INSTANCE_KEY}`,
    ]);
    const idle = vastLease(api, {
      graceMs: 60_000,
      afterJob: 'keep_warm',
      idleTimeoutMs: 1_000,
      checkMs: 100,
    });
    let lastInUse = await renew(client, { ...idle, inUse: true });
    const until = Date.now() + 3_000; // three idle timeouts
    while (Date.now() < until) {
      await sleep(150);
      lastInUse = await renew(client, { ...idle, inUse: true });
    }
    expect(teardowns(client)).toEqual([]);
    expect((await client.request('status')).teardown).toBeNull();
    await renew(client, { ...idle, inUse: false });
    await client.waitFor(reached('destroy_requested'));
    const record = teardowns(client).at(-1)!;
    expect(record.cause).toBe('idle');
    expect(record.at - lastInUse.sentAt).toBeGreaterThanOrEqual(1_000);
    expect(record.at - lastInUse.answeredAt).toBeLessThan(1_000 + 100 + SLACK_MS);
  });

  it('stays armed but quiet while renewed, far past the grace', async () => {
    const { client } = await startAgent(await nodeRoot());
    await client.request('start', { phase: 'run', command: 'sleep 600' });
    const lease: LeaseParams = {
      graceMs: 800,
      afterJob: 'destroy',
      teardown: { kind: 'remove-files' },
    };
    const until = Date.now() + 4_800; // six graces
    while (Date.now() < until) {
      await renew(client, lease);
      await sleep(100);
    }
    expect(teardowns(client)).toEqual([]);
    const status = await client.request('status');
    expect(status.teardown).toBeNull();
    expect(status.phases.run?.state).toBe('running');
    expect(await client.send('lease', { ...lease, graceMs: 50 })).toMatchObject({
      ok: false,
      error: { code: 'bad_request', message: expect.stringContaining('graceMs') },
    });
    expect(
      await client.send('lease', {
        ...lease,
        teardown: { kind: 'vastai', apiUrl: 'file:///x', envFiles: [] },
      }),
    ).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });

  it('never fires without a lease', async () => {
    const { client } = await startAgent(await nodeRoot());
    await sleep(1_000);
    expect(teardowns(client)).toEqual([]);
    expect((await client.request('hello')).teardown).toBeNull();
  });
});

describe('dead-man switch on a host without an instance credential', () => {
  it('stops the job, removes workspace and outputs, keeps the logs, and ends the agent', async () => {
    const root = await nodeRoot();
    const { dir, client, pid } = await startAgent(root);
    await client.request('start', {
      phase: 'setup',
      command: 'mkdir -p sub; echo w > sub/file; echo o > "$TENDER_OUTPUT/o"',
    });
    await eventually(() => lastPhase(client, 'setup')?.state === 'exited');
    const { pid: jobPid } = await client.request('start', { phase: 'run', command: 'sleep 600' });
    expect(existsSync(join(dir, 'output', 'o'))).toBe(true);
    await renew(client, {
      graceMs: 400,
      maxDurationMs: 400,
      afterJob: 'destroy',
      teardown: { kind: 'remove-files' },
    });
    await client.waitFor(reached('files_removed'));
    expect(await client.exited).toBe(0);

    expect(teardowns(client).map((r) => r.state)).toEqual(['stopping_job', 'files_removed']);
    expect(existsSync(join(dir, 'workspace'))).toBe(false);
    expect(existsSync(join(dir, 'output'))).toBe(false);
    expect(existsSync(join(dir, 'agent.lock'))).toBe(false);
    await eventually(() => !isRunning(pid));
    expect(isGroupAlive(jobPid)).toBe(false);
    const lines = fileRecords(dir).map((r) => r.line);
    expect(
      lines.some((l) =>
        /^dead-man switch: max duration reached; tearing this node down$/.test(l),
      ),
    ).toBe(true);
    expect(lines).toContain('agent shutting down');
    const run = JSON.parse(readFileSync(join(dir, 'phases', 'run.json'), 'utf8')) as PhaseState;
    expect(run).toMatchObject({ state: 'exited', cancelled: true });

    // Started again (the app reconnecting), it reports what happened and starts nothing,
    // not even for a new attempt.
    const again = await startAgent(root);
    await again.client.request('configure', { jobId: 'job-1', attempt: 2 });
    expect((await again.client.request('hello')).teardown).toMatchObject({
      cause: 'max_duration',
      state: 'files_removed',
    });
    expect(await again.client.send('start', { phase: 'run', command: 'true' })).toMatchObject({
      ok: false,
      error: { code: 'shutting_down' },
    });
    expect(
      await again.client.send('lease', {
        graceMs: 400,
        afterJob: 'destroy',
        teardown: { kind: 'remove-files' },
      }),
    ).toMatchObject({
      ok: false,
      error: { code: 'shutting_down' },
    });
  });
});
