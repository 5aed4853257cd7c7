// Distributed runs over real sshd (ssh provider), each node on its own loopback address:
// every rank is set up, the agents check that each rank reaches rank 0's MASTER_PORT,
// then all start together with their rank's environment. A small Python job sums the
// ranks over TCP at MASTER_ADDR:MASTER_PORT and succeeds only if every rank reached rank
// 0. One rank failing stops the others and fails the run naming it; a port rank 0 cannot
// listen on stops the gang before anything starts, naming the pair.
import { createServer, type Server } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobSpecInput, LogRecord } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { freePort } from '../helpers/free-port';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { runOnHosts, sshCore, sshJob } from '../helpers/ssh-core';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

const GANG_PY = `
import os, socket, sys, time
rank = int(os.environ["TENDER_NODE_RANK"]); n = int(os.environ["TENDER_NUM_NODES"])
addr = os.environ["MASTER_ADDR"]; port = int(os.environ["MASTER_PORT"])
print(f"rank {rank} of {n} at {os.environ['TENDER_NODE_IPS'].split()[rank]} sky={os.environ['SKYPILOT_NODE_RANK']} dstack={os.environ['DSTACK_NODE_RANK']} master={os.environ['DSTACK_MASTER_NODE_IP']}", flush=True)
if rank == int(os.environ.get("FAIL_RANK", "-1")):
    sys.exit(3)
if rank == 0:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port)); s.listen(n); s.settimeout(30)
    total = 0
    for _ in range(n - 1):
        c, _ = s.accept(); total += int(c.recv(16)); c.sendall(b"ok"); c.close()
    print(f"rank 0 sum={total} expected={sum(range(1, n))}", flush=True)
    sys.exit(0 if total == sum(range(1, n)) else 1)
for _ in range(300):
    try:
        c = socket.create_connection((addr, port), timeout=2); break
    except OSError:
        time.sleep(0.1)
c.sendall(str(rank).encode()); assert c.recv(2) == b"ok"
print(f"rank {rank} reached rank 0", flush=True)
`;

async function gang(n: number) {
  for (let i = 0; i < n; i++) fixtures.push(await startSshd({ address: `127.0.0.${i + 2}` }));
  const t = sshCore(fixtures.slice(-n));
  closers.push(() => t.close());
  writeFileSync(join(t.work, 'gang.py'), GANG_PY);
  return t;
}

const job = (work: string, extra: Partial<JobSpecInput> = {}): JobSpecInput =>
  sshJob(work, { name: 'gang', run: 'python3 gang.py', distributed: true, ...extra });

async function runLines(core: TenderCore, runId: string): Promise<LogRecord[]> {
  const r = await core.client.invoke('logs.read', { runId, channel: 'agent', limit: 100_000 });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.records.filter((x) => x.source === 'run');
}

async function events(core: TenderCore, runId: string): Promise<string> {
  const r = await core.client.invoke('logs.read', { runId, channel: 'events', limit: 100_000 });
  return r.ok ? r.value.records.map((x) => x.line).join('\n') : '';
}

describe('distributed runs (ssh provider, one loopback address per node)', () => {
  it.each([2, 3])('%i ranks reach rank 0 and sum their ranks; every alias is set', async (n) => {
    const t = await gang(n);
    const port = await freePort();
    const run = await runOnHosts(
      t.core,
      job(t.work, { master_port: port }),
      t.hosts.map((h) => h.name),
    );
    const lines = (await runLines(t.core, run.id)).map((r) => r.line);
    expect(
      run.status,
      `${run.failedReason}\n${lines.join('\n')}\n${await events(t.core, run.id)}`,
    ).toBe('completed');
    for (let r = 0; r < n; r++)
      expect(lines).toContain(
        `rank ${r} of ${n} at 127.0.0.${r + 2} sky=${r} dstack=${r} master=127.0.0.2`,
      );
    expect(lines).toContain(`rank 0 sum=${(n * (n - 1)) / 2} expected=${(n * (n - 1)) / 2}`);
    expect(await events(t.core, run.id)).toMatch(/every rank reached rank 0 at 127\.0\.0\.2:\d+/);
  });

  it('one rank failing stops the others and fails the run naming it', async () => {
    const t = await gang(3);
    const run = await runOnHosts(
      t.core,
      job(t.work, { master_port: await freePort(), env: { FAIL_RANK: '2' } }),
      t.hosts.map((h) => h.name),
    );
    expect(run.status).toBe('failed');
    expect(run.failedReason).toBe('rank 2 failed (exit 3)');
    // Rank 0 waited for rank 2's connection, which never came: it was stopped, not left.
    const byNode = Object.fromEntries(run.nodes.map((nd) => [nd.logicalId, nd]));
    expect(byNode['node-0']!.jobStatus).toBe('failed');
    expect(byNode['node-2']!.exitCode).toBe(3);
    expect(run.nodes.map((nd) => nd.stage)).toEqual(['destroyed', 'destroyed', 'destroyed']);
    expect(await events(t.core, run.id)).toMatch(
      /rank 2 failed \(exit 3\): stopping the other ranks/,
    );
  });

  it('a master port rank 0 cannot listen on stops the gang before it starts, naming the pair', async () => {
    const t = await gang(2);
    const port = await freePort();
    const taken: Server = createServer();
    await new Promise<void>((r) => taken.listen(port, '0.0.0.0', r));
    try {
      const run = await runOnHosts(
        t.core,
        job(t.work, { master_port: port }),
        t.hosts.map((h) => h.name),
      );
      expect(run.status).toBe('failed');
      expect(run.failedReason).toMatch(
        new RegExp(
          `rank 0 \\(127\\.0\\.0\\.2\\) cannot listen on port ${port}: port ${port} is in use on this node`,
        ),
      );
      expect(await runLines(t.core, run.id)).toEqual([]); // no rank started
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
