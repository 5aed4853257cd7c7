// logs.backfill on the local provider (real agent processes, a real ledger): a run detached
// before its job printed anything, the job printing with nobody attached, then the log
// fetched from the agent — by the writer, which stores it, and by a read-only process,
// which only sends it as log.lines — every line exactly once, however often it is asked.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput, CommandName, CommandOutput, LogRecord } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { Datastream } from '../../src-main/datastream/datastream';
import { connectorFor } from '../../src-main/nodes/ssh-connect';
import { agentBackfill } from '../../src-main/services/logs/agent-backfill';
import { agentBundlePath } from '../helpers/agent-bundle';
import { until } from '../helpers/wait';

const LINES = 3_000;
const cores: TenderCore[] = [];
const roots: string[] = [];
afterEach(async () => {
  for (const c of cores.splice(0)) {
    if (c.isWriter) await c.client.invoke('lease.destroyAll', {});
    await c.close();
  }
  for (const r of roots.splice(0)) {
    try {
      execFileSync('pkill', ['-KILL', '-f', r]);
    } catch {
      // nothing left running
    }
    rmSync(r, { recursive: true, force: true });
  }
});

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'tender-backfill-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hi\n');
  const opts = { home, env: { TENDER_AGENT_BUNDLE: agentBundlePath() }, reconcile: false };
  const core = TenderCore.open(opts);
  cores.push(core);
  const reader = () => {
    const r = TenderCore.openReadonly(opts)!;
    cores.push(r);
    return r;
  };
  return { root, home, work, core, reader };
}

async function invoke<C extends CommandName>(
  core: TenderCore,
  cmd: C,
  input: CommandInput<C>,
): Promise<CommandOutput<C>> {
  const r = await core.client.invoke(cmd, input);
  if (!r.ok) throw new Error(`${cmd}: ${r.error.message}`);
  return r.value;
}

/** The job's own lines in the datastream, read page by page as `tender logs` reads them. */
async function storedJobLines(core: TenderCore, runId: string): Promise<string[]> {
  const lines: string[] = [];
  for (let from = 1; ;) {
    const { records } = await invoke(core, 'logs.read', {
      runId,
      nodeName: 'node-0',
      channel: 'agent',
      fromSeq: from,
      limit: 1_000,
    });
    if (records.length === 0) return lines;
    lines.push(...records.filter((r) => r.source === 'run').map((r) => r.line));
    from = records[records.length - 1]!.seq + 1;
  }
}

const expected = Array.from({ length: LINES }, (_, i) => `line ${i + 1}`);

/** A run detached before its job printed; resolves once the job has ended on its node. The
 *  job waits before printing, so every line comes while nobody is attached. */
async function detachedRunThatPrinted(core: TenderCore, work: string) {
  const started = await invoke(core, 'run.start', {
    job: {
      name: 'unattended',
      run: `sleep 1.5; for i in $(seq 1 ${LINES}); do echo "line $i"; done`,
      workspace: { workdir: work, exclude: [] },
    },
    pool: { provider: 'local', count: 1, verify: [] },
    keep: false,
  });
  const runId = started.id;
  await core.waitJobsStarted(runId);
  await invoke(core, 'run.detach', { runId });
  const node = core.ledger.nodesOfRun(runId)[0]!;
  const nodeLog = join((node.connection as { dir: string }).dir, 'logs', 'log.jsonl');
  await until(
    () => existsSync(nodeLog) && readFileSync(nodeLog, 'utf8').includes('run exited with code 0'),
    30_000,
  );
  return { runId, node, nodeLog };
}

const seqsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { seq: number }).seq);

describe('logs.backfill', () => {
  it('fills a detached run’s log from the agent, each line once, and a second backfill adds nothing', async () => {
    const { core, work, reader, home } = setup();
    const { runId, node, nodeLog } = await detachedRunThatPrinted(core, work);
    expect(await storedJobLines(core, runId)).toEqual([]);
    const agentFile = join(home, 'datastream', runId, 'node-0', 'agent.jsonl');
    const fileBefore = readFileSync(agentFile, 'utf8');

    // A read-only process (this writer holds the ledger) fetches and sends, never stores.
    const ro = reader();
    const sent: LogRecord[] = [];
    ro.bus.on('log.lines', ({ records }) => sent.push(...records));
    const roReport = await invoke(ro, 'logs.backfill', { runId });
    expect(roReport.nodes).toMatchObject([{ nodeId: node.id, outcome: 'sent', detail: null }]);
    expect(sent.filter((r) => r.source === 'run').map((r) => r.line)).toEqual(expected);
    expect(new Set(sent.map((r) => r.seq)).size).toBe(sent.length);
    expect(readFileSync(agentFile, 'utf8')).toBe(fileBefore);
    sent.length = 0;
    const roTail = await invoke(ro, 'logs.backfill', { runId, tail: 5 });
    expect(roTail.nodes[0]).toMatchObject({ outcome: 'sent', records: 5 });
    expect(sent.map((r) => r.seq)).toEqual(
      Array.from({ length: 5 }, (_, i) => roTail.nodes[0]!.agentLastSeq! - 4 + i),
    );

    // The writer stores them, same seqs as the agent's.
    const first = await invoke(core, 'logs.backfill', { runId });
    expect(first.nodes).toMatchObject([{ nodeId: node.id, outcome: 'stored', detail: null }]);
    expect(first.nodes[0]!.records).toBeGreaterThanOrEqual(LINES);
    expect(await storedJobLines(core, runId)).toEqual(expected);
    expect(seqsOf(agentFile)).toEqual(seqsOf(nodeLog));

    // Asked again: nothing new, nothing twice.
    const second = await invoke(core, 'logs.backfill', { runId });
    expect(second.nodes).toMatchObject([{ outcome: 'complete', records: 0 }]);
    expect(await storedJobLines(core, runId)).toEqual(expected);
    expect(await storedJobLines(ro, runId)).toEqual(expected);

    // Attaching afterwards resumes the link after the backfilled seqs: still once each.
    await invoke(core, 'run.attach', { runId });
    await core.waitRun(runId);
    expect((await invoke(core, 'run.get', { runId })).status).toBe('completed');
    expect(await storedJobLines(core, runId)).toEqual(expected);
    const after = await invoke(core, 'logs.backfill', { runId });
    expect(after.nodes).toMatchObject([{ outcome: 'no_agent', records: 0 }]);
  });

  it('stores a recovered attempt’s agent records after the attempt before’s, as its link does', async () => {
    const { core, work, root } = setup();
    const { runId, node, nodeLog } = await detachedRunThatPrinted(core, work);
    // The same node and agent, seen as a second attempt whose first left 1 000 records in a
    // datastream of its own.
    const datastream = new Datastream(join(root, 'other-datastream'));
    datastream.append(node.id, 'agent', {
      seq: 1_000,
      ts: 1,
      source: 'run',
      stream: 'stdout',
      line: 'attempt 1',
    });
    const backfill = agentBackfill({
      ledger: {
        getRun: (id) => core.ledger.getRun(id),
        nodesOfRun: () => [{ ...node, agentSeqOffset: 1_000 }],
      },
      datastream,
      connect: (endpoint, deadlineMs) =>
        connectorFor({ home: core.home, ledger: core.ledger, now: Date.now }, endpoint, deadlineMs),
      isDriven: () => false,
      canStore: true,
      emit: () => {},
    });
    expect(await backfill(runId)).toMatchObject([{ outcome: 'stored', detail: null }]);
    expect(await backfill(runId)).toMatchObject([{ outcome: 'complete', records: 0 }]);
    datastream.close();
    const file = join(root, 'other-datastream', runId, 'node-0', 'agent.jsonl');
    expect(seqsOf(file)).toEqual([1_000, ...seqsOf(nodeLog).map((s) => s + 1_000)]);
  });

  it('leaves a run this process drives to its link', async () => {
    const { core, work } = setup();
    const started = await invoke(core, 'run.start', {
      job: { name: 'driven', run: 'sleep 2', workspace: { workdir: work, exclude: [] } },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    await core.waitJobsStarted(started.id);
    const report = await invoke(core, 'logs.backfill', { runId: started.id });
    expect(report.nodes).toMatchObject([{ outcome: 'driven', records: 0 }]);
    await core.waitRun(started.id);
  });
});
