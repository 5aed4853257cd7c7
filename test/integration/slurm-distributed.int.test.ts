// A distributed run on a real two-node Slurm cluster (two slurmd on this host): one
// allocation per rank, rank 0's compute-node address handed to the others (NodeAddr), the
// pre-flight through the agents, and a Python job summing its ranks over TCP at
// MASTER_ADDR:MASTER_PORT.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from '../helpers/agent-bundle';
import { freePort } from '../helpers/free-port';
import {
  registerCluster,
  startLoginNode,
  startSlurm,
  type LoginNode,
  type SlurmCluster,
} from '../helpers/slurm';

let cluster: SlurmCluster;
let login: LoginNode;

beforeAll(async () => {
  cluster = await startSlurm({ nodes: 2, cpus: 1 });
  login = await startLoginNode(cluster);
}, 60_000);

afterAll(async () => {
  await login?.stop();
  await cluster?.stop();
});

const GANG_PY = `
import os, socket, sys, time
rank = int(os.environ["TENDER_NODE_RANK"]); n = int(os.environ["TENDER_NUM_NODES"])
addr = os.environ["MASTER_ADDR"]; port = int(os.environ["MASTER_PORT"])
print(f"rank {rank} of {n} on {os.environ.get('SLURMD_NODENAME')}", flush=True)
if rank == 0:
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port)); s.listen(n); s.settimeout(30)
    total = 0
    for _ in range(n - 1):
        c, _ = s.accept(); total += int(c.recv(16)); c.close()
    print(f"sum={total}", flush=True); sys.exit(0 if total == sum(range(1, n)) else 1)
for _ in range(300):
    try:
        c = socket.create_connection((addr, port), timeout=2); break
    except OSError:
        time.sleep(0.1)
c.sendall(str(rank).encode())
`;

describe('distributed on Slurm (two slurmd)', () => {
  it('two allocations, one per rank, on both nodes; every rank reaches rank 0', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tender-slurm-gang-'));
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'gang.py'), GANG_PY);
    registerCluster(home, cluster, login, join(root, 'key'));
    const core = TenderCore.open({
      home,
      env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    });
    try {
      const started = await core.client.invoke('run.start', {
        job: {
          name: 'gang',
          run: 'python3 gang.py',
          distributed: true,
          master_port: await freePort(),
          workspace: { workdir: work, exclude: [] },
        },
        pool: { provider: 'slurm', cluster: 'lab', count: 2 },
      });
      if (!started.ok) throw new Error(started.error.message);
      await core.waitRun(started.value.id);
      const v = await core.client.invoke('run.get', { runId: started.value.id });
      const logs = await core.client.invoke('logs.read', {
        runId: started.value.id,
        channel: 'agent',
      });
      const lines = logs.ok
        ? logs.value.records.filter((r) => r.source === 'run').map((r) => r.line)
        : [];
      const ev = await core.client.invoke('logs.read', {
        runId: started.value.id,
        channel: 'events',
      });
      expect(
        v.ok && v.value.status,
        `${v.ok && v.value.failedReason}\n${ev.ok ? ev.value.records.map((r) => r.line).join('\n') : ''}`,
      ).toBe('completed');
      expect(lines).toContain('sum=1');
      // One CPU a node: the two allocations are on the two nodes.
      const on = lines
        .filter((l) => l.startsWith('rank '))
        .map((l) => l.split(' on ')[1])
        .sort();
      expect(on).toEqual([...cluster.nodes].sort());
    } finally {
      await core.close();
      rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});
