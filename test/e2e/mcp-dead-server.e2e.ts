// kill -9 of `tender mcp` while its runs are live: each run still ends on its node by the
// max duration and budget the session gave it (the node's own dead-man switch, with the
// instance's own key), and `tender down --all` afterwards leaves nothing on the fake.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Ledger } from '../../src-main/ledger/ledger';
import { KNOWN_PROVIDERS } from '../../src-main/providers/known';
import { startFakeVast, VAST_ENV_FILE } from '../fakes/vast';
import { agentBundlePath } from '../helpers/agent-bundle';
import { runCli } from '../helpers/cli';
import { startMcpProcess } from '../helpers/mcp-process';
import { TEST_TIMING } from '../helpers/vast-core';
import { timeBudget, until, untilAsync } from '../helpers/wait';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const MAX_DURATION_S = 30;
/** Past the switch's max deadline, how long a node may take to destroy itself (its agent
 *  checks every few seconds, then the destroy call): billed 31–35 s of 30 s here. */
const SELF_TEARDOWN_GRACE_MS = 30_000;
/** Shared by every wait of the test, under e2e's 120 s timeout: a wait that runs out names
 *  what it waited for. The run takes ~35 s: the max duration and a few seconds around it. */
const TEST_BUDGET_MS = 110_000;

interface LogsOut {
  status: string;
  lines: { text: string }[];
}

describe('tender mcp killed while its runs are live', () => {
  it('each run ends by its max duration on its node; tender down --all leaves nothing on the fake', async () => {
    const budget = timeBudget(TEST_BUDGET_MS);
    const fake = await startFakeVast({
      offers: [
        { gpu_name: 'RTX 4090', dph_base: 0.5 },
        { gpu_name: 'RTX 4090', dph_base: 0.55 },
      ],
    });
    cleanups.push(() => fake.stop());
    const root = mkdtempSync(join(tmpdir(), 'tender-mcp-kill-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(
      join(work, 'tender.toml'),
      '[job]\nname = "forever"\nrun = "echo begun; sleep 600"\n',
    );

    const mcp = await startMcpProcess(fake, {
      home,
      vastUrl: fake.url,
      apiKey: fake.apiKey,
      agentBundle: agentBundlePath(),
      timing: TEST_TIMING,
      containerEnvFiles: [`~/${VAST_ENV_FILE}`],
      usersFile: join(root, 'users.json'),
      limits: {
        budgetUsd: 2,
        maxNodes: null,
        providers: [...KNOWN_PROVIDERS],
        allowDownAny: false,
      },
    });
    cleanups.push(() => mcp.close());
    const runIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await mcp.call(
        'tender_run',
        {
          job_file: join(work, 'tender.toml'),
          provider: 'vastai',
          max_duration: `${MAX_DURATION_S}s`,
        },
        budget.left(30_000),
      );
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
      runIds.push((r.structuredContent as { run: { run_id: string } }).run.run_id);
    }
    // Both jobs run: each has printed its line (a run that ended instead never will).
    const seen = new Map<string, LogsOut>();
    const beganMs = budget.left(30_000);
    await untilAsync(
      async () => {
        for (const runId of runIds) {
          if (seen.get(runId)?.lines.some((l) => l.text === 'begun')) continue;
          const r = await mcp.call('tender_logs', { run_id: runId, tail: 20 }, budget.left(30_000));
          expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
          const out = r.structuredContent as unknown as LogsOut;
          seen.set(runId, out);
          if (out.status !== 'running' && out.status !== 'pending') {
            const st = await mcp.call('tender_status', { run_id: runId }, budget.left(30_000));
            throw new Error(
              `run ${runId} ended ${out.status} before its job began: ${JSON.stringify(st.content)}`,
            );
          }
        }
        return runIds.every((id) => seen.get(id)?.lines.some((l) => l.text === 'begun'));
      },
      {
        ms: beganMs,
        what: "both jobs' first line ('begun')",
        describe: () => JSON.stringify(Object.fromEntries(seen)),
      },
    );
    // Each node's switch has been armed with the run's limits.
    const armed = await until(
      () => {
        const ledger = Ledger.openReader(home);
        try {
          const leases = ledger?.listLeases() ?? [];
          return leases.length === 2 && leases.every((l) => l.deadMan !== null) ? leases : null;
        } finally {
          ledger?.close();
        }
      },
      budget.left(15_000),
      25,
      "both leases' dead-man switch armed in the ledger",
    );
    expect(fake.state.liveInstances()).toHaveLength(2);

    process.kill(mcp.pid, 'SIGKILL');

    // Nobody is left to stop them: each node destroys itself at its max duration, with its
    // own key.
    const dueAt = Math.max(...armed.map((l) => l.deadMan!.maxDeadlineAt ?? Infinity));
    expect(dueAt).toBeLessThan(Infinity);
    try {
      await until(
        () => fake.state.liveInstances().length === 0,
        budget.left(dueAt + SELF_TEARDOWN_GRACE_MS - Date.now()),
        250,
        `both nodes destroyed by themselves (max duration ${MAX_DURATION_S} s)`,
      );
    } catch (err) {
      // What the nodes still up say about their switch.
      for (const i of fake.state.liveInstances()) {
        const out = spawnSync('sh', ['-c', `tail -n 30 ${i.node.home}/.tender/nodes/*/agent.log`], {
          encoding: 'utf8',
        });
        console.error(`instance ${i.id} (${i.actualStatus}):\n${out.stdout}${out.stderr}`);
      }
      throw err;
    }
    expect(fake.state.destroyLog().map((d) => d.by)).toEqual(['instance', 'instance']);
    for (const inst of fake.state.instances()) {
      const bill = fake.state.billing(inst.id);
      const runningS = (bill.byState.running / bill.dphTotal) * 3_600;
      console.log(
        `instance ${inst.id} billed ${runningS.toFixed(1)} s running (max_duration ${MAX_DURATION_S} s)`,
      );
      expect(runningS).toBeLessThan(MAX_DURATION_S + 15);
    }

    const env = { TENDER_VASTAI_URL: fake.url, TENDER_VASTAI_API_KEY: fake.apiKey };
    const down = await runCli(['down', '--all', '--json'], {
      home,
      env,
      timeoutMs: budget.left(30_000),
    });
    expect(down.code, `${down.signal ?? ''} ${down.stderr}`).toBe(0);
    expect(fake.state.liveInstances()).toEqual([]);
    expect(fake.state.instances()).toHaveLength(2); // nothing rented after the kill
  });
});
