import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { minimalBin, startSshd, type SshdFixture } from '../helpers/sshd';
import { runOnHosts, sshCore, sshJob } from '../helpers/ssh-core';
import { leaseFolders, untilNodesFolderEmpty } from '../helpers/host-nodes';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

async function sshd(opts: Parameters<typeof startSshd>[0] = {}) {
  const f = await startSshd(opts);
  fixtures.push(f);
  return f;
}

function setup(fs: SshdFixture[], timing = {}) {
  const t = sshCore(fs, timing);
  closers.push(() => t.close());
  writeFileSync(join(t.work, 'hello.txt'), 'hello over ssh\n');
  mkdirSync(join(t.work, 'src'), { recursive: true });
  writeFileSync(
    join(t.work, 'src', 'train.sh'),
    'echo "training in $PWD"; mkdir -p out; echo 42 > out/result.txt\n',
  );
  return t;
}

const agentsFor = (label: string) => {
  try {
    return execFileSync('pgrep', ['-f', label], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
};

describe('a job on machines you already have (ssh provider, real sshd)', () => {
  it('runs setup, run, collects outputs and tears down, keeping the cached agent', async () => {
    const f = await sshd();
    const { core, work } = setup([f]);
    const run = await runOnHosts(
      core,
      sshJob(work, {
        setup: 'echo setting up',
        run: 'sh src/train.sh && cat hello.txt',
        outputs: ['out/result.txt'],
      }),
      ['h0'],
    );
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(run.nodes[0]).toMatchObject({ stage: 'destroyed', exitCode: 0 });
    const out = await core.client.invoke('logs.read', { runId: run.id, channel: 'agent' });
    const lines = out.ok
      ? out.value.records.filter((r) => r.source !== 'agent').map((r) => r.line)
      : [];
    expect(lines).toEqual([
      'setting up',
      expect.stringMatching(/^training in .*\/workspace$/),
      'hello over ssh',
    ]);
    expect(
      readFileSync(
        join(core.home, 'runs', run.id, 'node-0', 'outputs', 'out', 'result.txt'),
        'utf8',
      ),
    ).toBe('42\n');
    // On the host: the lease's folder is gone, the cached agent stays, nothing keeps running;
    // its files are removed behind the destroy's answer.
    expect(leaseFolders(f.home)).toEqual([]);
    await untilNodesFolderEmpty(f.home);
    expect(readdirSync(join(f.home, '.tender', 'cache', 'agent')).length).toBe(1);
    expect(agentsFor(run.nodes[0]!.label!)).toEqual([]);
    expect(core.ledger.getHostKey('host:h0')?.fingerprint).toBe(f.hostKeyFingerprint);
  });

  it('runs two nodes in parallel, one per host', async () => {
    const [a, b] = [await sshd(), await sshd()];
    const { core, work } = setup([a!, b!]);
    const run = await runOnHosts(core, sshJob(work, { run: 'hostname; cat hello.txt' }), [
      'h0',
      'h1',
    ]);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(run.nodes.map((n) => [n.logicalId, n.stage])).toEqual([
      ['node-0', 'destroyed'],
      ['node-1', 'destroyed'],
    ]);
  });

  it('survives 20 cuts of the agent link during 100k lines: app log identical to the node log', async () => {
    const f = await sshd();
    const { core, work } = setup([f]);
    const job = sshJob(work, {
      run: 'i=0; while [ $i -lt 100 ]; do seq $((i*1000+1)) $((i*1000+1000)); i=$((i+1)); sleep 0.1; done',
    });
    const started = await core.client.invoke('run.start', {
      job,
      pool: { provider: 'ssh', hosts: ['h0'] },
      keep: true,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    let cuts = 0;
    const cutter = (async () => {
      while (cuts < 20) {
        await new Promise((r) => setTimeout(r, 150 + Math.floor(Math.random() * 350)));
        const node = core.ledger.nodesOfRun(runId)[0]!;
        const phase = core.ledger.getAttempt(node.id)?.phase;
        if (phase === 'run' || phase === 'setup') {
          f.killSessions();
          cuts++;
        } else if (phase === 'collecting' || phase === 'tearing_down' || phase === 'done') break;
      }
    })();
    await core.waitRun(runId);
    await cutter;
    expect(cuts).toBeGreaterThanOrEqual(10); // the job ran long enough to be cut many times
    const view = await core.client.invoke('run.get', { runId });
    expect(view.ok && view.value.status).toBe('completed');

    const appRecords: [number, string][] = [];
    for (let from = 1; ;) {
      const page = await core.client.invoke('logs.read', {
        runId,
        channel: 'agent',
        fromSeq: from,
        limit: 50_000,
      });
      if (!page.ok) throw new Error(page.error.message);
      if (page.value.records.length === 0) break;
      for (const r of page.value.records) appRecords.push([r.seq, r.line]);
      from = page.value.records[page.value.records.length - 1]!.seq + 1;
    }
    const label = core.ledger.nodesOfRun(runId)[0]!.label;
    const nodeLog = readFileSync(
      join(f.home, '.tender', 'nodes', label, 'logs', 'log.jsonl'),
      'utf8',
    )
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seq: number; line: string })
      .map((r) => [r.seq, r.line]);
    const hash = (x: unknown) => createHash('sha256').update(JSON.stringify(x)).digest('hex');
    expect(appRecords.length).toBe(nodeLog.length);
    expect(hash(appRecords)).toBe(hash(nodeLog));
    expect(appRecords.filter(([, l]) => /^\d+$/.test(String(l)))).toHaveLength(100_000);
    const events = await core.client.invoke('logs.read', { runId, channel: 'events' });
    expect(events.ok && events.value.records.some((r) => r.line.startsWith('link lost'))).toBe(
      true,
    );
    const down = await core.client.invoke('lease.destroyAll', {});
    expect(down.ok && down.value.allConfirmed).toBe(true);
  });

  it('waits for an sshd that starts listening 5 s late', async () => {
    const f = await sshd({ startDelayMs: 5_000 });
    const { core, work } = setup([f]);
    const run = await runOnHosts(core, sshJob(work), ['h0']);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const boot = await core.client.invoke('logs.read', { runId: run.id, channel: 'bootstrap' });
    expect(boot.ok && boot.value.records.some((r) => /refused.*retrying/.test(r.line))).toBe(true);
  });

  it('reports a rejected key as an authentication error, naming the user', async () => {
    const f = await sshd();
    const other = await sshd();
    // Teardown cannot authenticate either: give up on it after one attempt (it stays listed).
    const { core, work, hosts } = setup([f], { teardownMaxAttempts: 1 });
    // h0's identity file now holds a key the host does not know.
    writeFileSync(hosts[0]!.identityFile, other.clientKey.privateKey);
    const run = await runOnHosts(core, sshJob(work), ['h0']);
    expect(run.status).toBe('failed');
    expect(run.failedReason).toMatch(/ssh_timeout.*(rejected|auth).*/i);
    expect(run.failedReason).toContain(f.user);
  }, 90_000);

  it('refuses a host whose key changed since it was pinned', async () => {
    const f = await sshd();
    const { core, work } = setup([f], { teardownMaxAttempts: 1 });
    const first = await runOnHosts(core, sshJob(work), ['h0']);
    expect(first.status).toBe('completed');
    // A reinstalled machine: a new host key, and none of the old connections (a connection
    // still up to the same sshd was checked when it was dialed, and may be lent again).
    await f.restart({ newHostKey: true });
    await f.killSessions();
    const second = await runOnHosts(core, sshJob(work), ['h0']);
    expect(second.status).toBe('failed');
    expect(second.failedReason).toMatch(/host key .*changed/i);
    expect(second.failedReason).toContain(f.hostKeyFingerprint);
  });

  it('is not fooled by a noisy, slow .bashrc', async () => {
    const f = await sshd({
      bashrc:
        'echo "Welcome to the cluster! TENDER-RUNTIME 9 99"\necho "motd: {\\"id\\":1}"\nsleep 0.3\n',
    });
    const { core, work } = setup([f]);
    const run = await runOnHosts(core, sshJob(work, { outputs: ['hello.txt'] }), ['h0']);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(
      readFileSync(join(core.home, 'runs', run.id, 'node-0', 'outputs', 'hello.txt'), 'utf8'),
    ).toBe('hello over ssh\n');
  }, 90_000);

  it('installs the pinned Node runtime on a host without one, once, and reuses it', async () => {
    const f = await sshd({ path: minimalBin() });
    const { core, work } = setup([f]);
    const first = await runOnHosts(core, sshJob(work), ['h0']);
    expect(first.status, first.failedReason ?? '').toBe('completed');
    const boot1 = await core.client.invoke('logs.read', { runId: first.id, channel: 'bootstrap' });
    expect(boot1.ok && boot1.value.records.some((r) => /installing Node 20\./.test(r.line))).toBe(
      true,
    );
    const second = await runOnHosts(core, sshJob(work), ['h0']);
    expect(second.status).toBe('completed');
    const boot2 = await core.client.invoke('logs.read', { runId: second.id, channel: 'bootstrap' });
    expect(boot2.ok && boot2.value.records.some((r) => /installing Node/.test(r.line))).toBe(false);
    expect(existsSync(join(f.home, '.tender', 'cache', 'runtime'))).toBe(true);
  }, 120_000);
});
