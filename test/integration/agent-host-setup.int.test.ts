// The host-setup FIFO, run_setup and TENDER_CACHE on the built agent, as real processes in
// a temp node folder laid out as on a node (`root/nodes/D`, the cache at `root/cache`).
// Build first: `npm run build:agent`.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentLogRecord, HostSetupStatus, StartOutput } from '../../src-agent/wire/protocol';
import { encodeHostSetupOptions } from '../../src-agent/wire/host-declaration';
import { AttachClient, killAgent, markedJson, runAgent } from '../helpers/agent-bundle';
import { useAgentCleanup } from '../helpers/agent-cleanup';

const { roots, nodeDirs, clients } = useAgentCleanup();

/** `root/nodes/D` with `root/cache` beside it, as bootstrap leaves a node; `root/bin` is
 *  first on the daemon's PATH (where a test installs a fake nvidia-smi). */
async function node(): Promise<{ root: string; dir: string; bin: string }> {
  const root = await mkdtemp(join(tmpdir(), 'tender-hostsetup-'));
  roots.push(root);
  const dir = join(root, 'nodes', 'D');
  const bin = join(root, 'bin');
  for (const d of [dir, join(root, 'cache'), bin]) mkdirSync(d, { recursive: true });
  nodeDirs.push(dir);
  return { root, dir, bin };
}

/** Polls `check` until it returns true; only the test's timeout bounds it. */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

async function start(
  n: { dir: string; bin: string },
  hostSetup: string[] = [],
  options?: { script: string; refreshCapabilities?: boolean; secrets?: string[] }[],
): Promise<AttachClient> {
  const args = ['start', '--dir', n.dir, '--host-decl', b64({ host_setup: hostSetup })];
  if (options) args.push('--host-setup', encodeHostSetupOptions(options));
  const res = await runAgent(args, undefined, { PATH: `${n.bin}:${process.env.PATH}` });
  expect(res.code, res.stderr).toBe(0);
  markedJson<StartOutput>(res.stdout);
  const c = new AttachClient(n.dir);
  clients.push(c);
  return c;
}

async function drained(c: AttachClient): Promise<HostSetupStatus> {
  let status!: HostSetupStatus;
  await until(async () => (status = await c.request('host_setup.status')).drained);
  return status;
}

function fileRecords(dir: string): AgentLogRecord[] {
  return readFileSync(join(dir, 'logs', 'log.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as AgentLogRecord);
}

/** The log's records once one of them passes `has`: the log writes in batches (10 ms), so
 *  a phase can read as exited a moment before its last lines are in the file. */
async function recordsOnceOne(
  dir: string,
  has: (r: AgentLogRecord) => boolean,
): Promise<AgentLogRecord[]> {
  let records: AgentLogRecord[] = [];
  await until(async () => (records = fileRecords(dir)).some(has));
  return records;
}

/** The lines of the log between `from` and `to` (seqs), as `src/stream line`. */
function section(dir: string, from: number, to: number): string[] {
  return fileRecords(dir)
    .filter((r) => r.seq >= from && r.seq <= to && r.src === 'host_setup')
    .map((r) => `${r.stream} ${r.line}`);
}

describe('the host-setup FIFO', () => {
  it('drains the declared entries in order, one at a time, each with its log section and exit code', async () => {
    const n = await node();
    const c = await start(n, ['echo one; sleep 0.2', 'echo two >&2; exit 3', 'echo three']);
    const status = await drained(c);
    expect(status.entries.map((e) => [e.id, e.script, e.origin, e.state, e.code])).toEqual([
      [1, 'echo one; sleep 0.2', 'declared', 'exited', 0],
      [2, 'echo two >&2; exit 3', 'declared', 'exited', 3],
      [3, 'echo three', 'declared', 'exited', 0],
    ]);
    const [a, b, d] = status.entries;
    // One at a time: each starts after the one before has exited.
    expect(b!.startedAt!).toBeGreaterThanOrEqual(a!.exitedAt!);
    expect(d!.firstSeq!).toBeGreaterThan(b!.lastSeq!);
    expect(section(n.dir, b!.firstSeq!, b!.lastSeq!)).toEqual([
      'info host_setup[2] echo two >&2; exit 3',
      'stderr two',
      'info host_setup[2] echo two >&2; exit 3 exited with code 3',
    ]);
    expect(section(n.dir, a!.firstSeq!, a!.lastSeq!)).toContain('stdout one');
    // Durable: one file per entry in D/host-setup.
    expect(
      JSON.parse(readFileSync(join(n.dir, 'host-setup', '000002.json'), 'utf8')),
    ).toMatchObject({ id: 2, state: 'exited', code: 3 });
  });

  it('after a restart runs no finished entry again: the interrupted one ends unknown, the pending one runs', async () => {
    const n = await node();
    const count = join(n.root, 'count.txt');
    const decl = [`echo a >> ${count}`, 'sleep 60', `echo c >> ${count}`];
    const c = await start(n, decl);
    await until(async () => (await c.request('host_setup.status')).entries[1]?.state === 'running');
    c.kill();
    await killAgent(n.dir); // the daemon and the sleep's group, as a crash or a reboot would
    const again = await start(n, decl);
    const status = await drained(again);
    expect(status.entries.map((e) => [e.id, e.state, e.code])).toEqual([
      [1, 'exited', 0],
      [2, 'exited', null],
      [3, 'exited', 0],
    ]);
    expect(readFileSync(count, 'utf8')).toBe('a\nc\n');
    expect(
      fileRecords(n.dir).some((r) =>
        /host_setup\[2\] sleep 60 ended while no agent was watching/.test(r.line),
      ),
    ).toBe(true);
    // A third start with the same declaration has nothing to run.
    again.kill();
    await killAgent(n.dir);
    const third = await start(n, decl);
    expect((await drained(third)).entries).toHaveLength(3);
    expect(readFileSync(count, 'utf8')).toBe('a\nc\n');
  });

  it('runs an entry appended to a live daemon after the pending ones', async () => {
    const n = await node();
    // The first entry runs until the test has appended, so the append lands behind it.
    const gate = join(n.root, 'gate');
    const c = await start(n, [
      `until [ -e '${gate}' ]; do sleep 0.05; done; echo declared`,
      'echo second',
    ]);
    await until(async () => (await c.request('host_setup.status')).entries[0]?.state === 'running');
    const appended = await c.request('host_setup.append', {
      script: 'echo appended',
      name: 'late',
    });
    expect(appended).toEqual({ id: 3, position: 2 });
    writeFileSync(gate, '');
    const status = await drained(c);
    expect(status.entries.map((e) => [e.id, e.origin, e.name ?? null, e.code])).toEqual([
      [1, 'declared', null, 0],
      [2, 'declared', null, 0],
      [3, 'appended', 'late', 0],
    ]);
    expect(status.entries[2]!.firstSeq!).toBeGreaterThan(status.entries[1]!.lastSeq!);
    expect(section(n.dir, status.entries[2]!.firstSeq!, status.entries[2]!.lastSeq!)).toEqual([
      'info host_setup[3] (late) echo appended',
      'stdout appended',
      'info host_setup[3] (late) echo appended exited with code 0',
    ]);
    // Once drained, a new one runs at once.
    expect(await c.request('host_setup.append', { script: 'true' })).toEqual({
      id: 4,
      position: 0,
    });
    expect(await c.send('host_setup.append', { script: '' })).toMatchObject({
      ok: false,
      error: { code: 'bad_request' },
    });
  });

  it('refuses start while entries are pending or running, and starts once drained', async () => {
    const n = await node();
    const c = await start(n, ['sleep 1']);
    await c.request('configure', { jobId: 'job-1', attempt: 0 });
    const refused = await c.send('start', { phase: 'run', command: 'echo run' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'host_setup_running' } });
    expect(!refused.ok && refused.error.message).toMatch(/host_setup\[1\] sleep 1 \(running\)/);
    await drained(c);
    expect(await c.request('start', { phase: 'run', command: 'echo run' })).toMatchObject({
      alreadyStarted: false,
    });
  });

  it('re-probes capabilities after an entry with refresh_capabilities: hello shows the new GPU', async () => {
    const n = await node();
    const fake = join(n.bin, 'nvidia-smi');
    // Stands in for a driver install: afterwards nvidia-smi answers with one GPU.
    const install = `printf '#!/bin/sh\\nif [ "$1" = "" ]; then echo "CUDA Version: 12.4"; else echo "0, NVIDIA H100 80GB HBM3, 81559, 550.54"; fi\\n' > ${fake} && chmod +x ${fake}`;
    const c = await start(n, [install], [{ script: install, refreshCapabilities: true }]);
    await drained(c);
    const hello = await c.request('hello');
    expect(hello.capabilities).toMatchObject({
      'gpu.count': 1,
      'gpu.model': 'NVIDIA H100 80GB HBM3',
      'gpu.cuda': '12.4',
    });
    await recordsOnceOne(n.dir, (r) => /capabilities re-probed: 1 GPU/.test(r.line));
  });

  it('does not re-probe after an entry without the flag', async () => {
    const n = await node();
    const fake = join(n.bin, 'nvidia-smi');
    writeFileSync(fake, '#!/bin/sh\nexit 9\n');
    chmodSync(fake, 0o755);
    const install = `printf '#!/bin/sh\\necho "0, NVIDIA A10, 22731, 550.54"\\n' > ${fake}`;
    const c = await start(n, [install]);
    await drained(c);
    expect((await c.request('hello')).capabilities['gpu.count']).toBeUndefined();
  });
});

describe('run_setup', () => {
  it('runs before every run, in its own section before the run output; a failure fails the run with its code', async () => {
    const n = await node();
    const c = await start(n);
    await c.request('subscribe', { fromSeq: 1 });
    await c.request('configure', { jobId: 'job-1', attempt: 0, runSetup: 'echo preparing' });
    await c.request('start', { phase: 'run', command: 'echo body' });
    await until(async () => (await c.request('status')).phases.run?.state === 'exited');
    const ok = (await recordsOnceOne(n.dir, (r) => r.line === 'body')).filter(
      (r) => r.src === 'run_setup' || r.src === 'run',
    );
    expect(ok.map((r) => `${r.src} ${r.line}`)).toEqual([
      'run_setup run_setup: echo preparing',
      'run_setup preparing',
      'run_setup run_setup exited with code 0',
      'run body',
    ]);
    expect((await c.request('status')).phases.run).toMatchObject({ code: 0, command: 'echo body' });

    await c.request('configure', { jobId: 'job-2', attempt: 0, runSetup: 'echo bad; exit 4' });
    await c.request('start', { phase: 'run', command: 'echo never' });
    await until(async () => (await c.request('status')).phases.run?.state === 'exited');
    expect((await c.request('status')).phases.run).toMatchObject({ code: 4 });
    const failed = 'run_setup failed (exited with code 4): run not started';
    const lines = (await recordsOnceOne(n.dir, (r) => r.line === failed)).map((r) => r.line);
    expect(lines).toContain(failed);
    expect(lines).not.toContain('never');
  });
});

describe('TENDER_CACHE', () => {
  it('is one folder beside the node folder that a second job on the daemon finds filled, with HF_HOME and friends inside it', async () => {
    const n = await node();
    const c = await start(n);
    const cache = join(n.root, 'cache', 'shared');
    await c.request('configure', { jobId: 'job-1', attempt: 0 });
    await c.request('start', {
      phase: 'run',
      command:
        'head -c 4096 /dev/zero > "$TENDER_CACHE/model.bin"; echo "HF=$HF_HOME TORCH=$TORCH_HOME PIP=$PIP_CACHE_DIR"',
    });
    await until(async () => (await c.request('status')).phases.run?.state === 'exited');
    const homes = `HF=${cache}/huggingface TORCH=${cache}/torch PIP=${cache}/pip`;
    await recordsOnceOne(n.dir, (r) => r.line === homes);
    await c.request('configure', { jobId: 'job-2', attempt: 0, env: { HF_HOME: '/mine' } });
    await c.request('start', {
      phase: 'run',
      command: 'wc -c < "$TENDER_CACHE/model.bin"; echo "HF=$HF_HOME"',
    });
    await until(async () => (await c.request('status')).phases.run?.state === 'exited');
    const lines = (await recordsOnceOne(n.dir, (r) => r.line === 'HF=/mine')).map((r) =>
      r.line.trim(),
    );
    expect(lines).toContain('4096');
    expect(lines).toContain('HF=/mine'); // the job's own setting wins
    expect(existsSync(join(cache, 'model.bin'))).toBe(true);
    const status = await c.request('status');
    expect(status.cache).toMatchObject({ path: cache });
    expect(status.cache!.bytes).toBeGreaterThanOrEqual(4096);
  });
});

/** Every process's command line now (a process that ends meanwhile is skipped). */
function allCmdlines(): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      try {
        return [readFileSync(`/proc/${p}/cmdline`, 'utf8')];
      } catch {
        return [];
      }
    });
}

describe('host_setup secrets', () => {
  it('waits for the secrets an entry names, runs it with them as env, and redacts its output', async () => {
    const secret = 'hf_Zq8Kv3Wm7Rj2Tx5Ny9Pb';
    const script = 'echo "token=$HF_TOKEN"; echo "${#HF_TOKEN} chars"; sleep 0.5';
    const n = await node();
    const c = await start(n, [script, 'echo after'], [{ script, secrets: ['HF_TOKEN'] }]);
    await recordsOnceOne(n.dir, (r) => /waits for its secrets \(HF_TOKEN\)/.test(r.line));
    // FIFO: the entry after it waits too.
    const before = await c.request('host_setup.status');
    expect(before.entries.map((e) => [e.state, e.secrets])).toEqual([
      ['pending', ['HF_TOKEN']],
      ['pending', undefined],
    ]);
    expect(before.drained).toBe(false);

    const seen: string[] = [];
    const watch = setInterval(
      () => seen.push(...allCmdlines().filter((l) => l.includes(secret))),
      20,
    );
    try {
      expect(await c.request('host_setup.secrets', { env: { HF_TOKEN: secret } })).toEqual({
        waiting: 0,
      });
      const status = await drained(c);
      expect(status.entries.map((e) => e.code)).toEqual([0, 0]);
      const [e] = status.entries;
      expect(section(n.dir, e!.firstSeq!, e!.lastSeq!)).toEqual([
        `info host_setup[1] ${script}`,
        'stdout token=***',
        `stdout ${secret.length} chars`, // the command had the whole value
        `info host_setup[1] ${script} exited with code 0`,
      ]);
    } finally {
      clearInterval(watch);
    }
    expect(seen).toEqual([]); // never on a command line while it ran
    const files = readdirSync(n.root, { recursive: true, withFileTypes: true }).filter((f) =>
      f.isFile(),
    );
    for (const f of files) {
      expect(readFileSync(join(f.parentPath, f.name), 'utf8'), f.name).not.toContain(secret);
    }
  });
});
