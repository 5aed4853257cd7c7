// GPU samples end to end through the core on the local provider: a fake nvidia-smi first on
// PATH (the node's agent inherits it) prints real nvidia-smi CSV; the node's view carries its
// summary, live in `node.changed` and in `status.get` of another process that reads the
// stored samples; the job's log shows none of them. Build first: `npm run build:agent`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gpuText, type NodeView } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from '../helpers/agent-bundle';
import { writeFakeNvidiaSmi } from '../helpers/fake-nvidia-smi';
import { until } from '../helpers/wait';

const cores: TenderCore[] = [];
const roots: string[] = [];
const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '../fixtures/nvidia-smi', name), 'utf8');

let bin: string;
beforeAll(() => {
  // This file's worker only: the local node's agent starts with this PATH.
  bin = writeFakeNvidiaSmi(
    mkdtempSync(join(tmpdir(), 'tender-gpu-bin-')),
    fixture('a100-80gb.usage.csv'),
  );
  roots.push(bin);
  process.env.PATH = `${bin}:${process.env.PATH}`;
});

afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  for (const r of roots.splice(1)) {
    try {
      execFileSync('pkill', ['-KILL', '-f', r]);
    } catch {
      // nothing left running
    }
    rmSync(r, { recursive: true, force: true });
  }
});

describe('GPU samples in the views', () => {
  it('fill the node view live and in another process, and stay out of the job log', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tender-gpu-core-'));
    roots.push(root);
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    const opts = { home, env: { TENDER_AGENT_BUNDLE: agentBundlePath() } };
    const core = TenderCore.open(opts);
    cores.push(core);
    const seen: NodeView[] = [];
    core.bus.on('node.changed', (n) => seen.push(n));
    const lines: string[] = [];
    core.bus.on('log.lines', ({ records }) => {
      for (const r of records) if (r.source === 'gpu') lines.push(r.line);
    });

    const started = await core.client.invoke('run.start', {
      job: {
        name: 'gpu',
        run: 'echo training; sleep 8',
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;

    // Live: the datastream's batches fill the node's summary, re-emitted with each sample.
    const live = await until(() => seen.find((n) => n.gpu), 60_000);
    expect(live.gpu).toMatchObject({
      gpus: [{ index: 0, util: 87, memUsedMiB: 31245, memTotalMiB: 81920 }],
      stale: false,
      stalled: false,
    });
    expect(live.gpu!.history.at(-1)).toMatchObject({ util: 87 });
    expect(gpuText(live.gpu!)).toBe('GPU 87% · 31/80 GB');
    expect(lines.length).toBeGreaterThanOrEqual(1);

    // Another process (a `tender status` while this one drives) reads the stored samples.
    const reader = TenderCore.openReadonly(opts)!;
    cores.push(reader);
    const status = await reader.client.invoke('status.get', {});
    if (!status.ok) throw new Error(status.error.message);
    const node = status.value.runs.find((r) => r.id === runId)!.nodes[0]!;
    expect(node.gpu).toMatchObject({ gpus: [{ util: 87 }], stalled: false });

    await core.waitRun(runId);
    const logs = await core.client.invoke('logs.read', {
      runId,
      channel: 'agent',
      fromSeq: 1,
      limit: 10_000,
    });
    if (!logs.ok) throw new Error(logs.error.message);
    // Stored with the job's log, on the same seq, and never shown as its output.
    expect(logs.value.records.some((r) => r.source === 'gpu')).toBe(true);
    expect(logs.value.records.filter((r) => r.source === 'run').map((r) => r.line)).toEqual([
      'training',
    ]);
    // A search finds the job's lines, never a sample (they are JSON on the same channel);
    // a tail of 1 is the job's last line, however many samples came after it.
    const found = await core.client.invoke('logs.search', { runId, query: 'util' });
    expect(found.ok && found.value.records).toEqual([]);
    const tail = await core.client.invoke('logs.read', {
      runId,
      channel: 'agent',
      fromSeq: 1,
      limit: 10,
      tail: 1,
    });
    expect(
      tail.ok && tail.value.records.filter((r) => r.source !== 'gpu').map((r) => r.line),
    ).toEqual([expect.any(String)]);
    // Gone with its node: a destroyed node shows no GPUs.
    const destroyed = seen.filter((n) => n.stage === 'destroyed');
    expect(destroyed.length).toBeGreaterThan(0);
    expect(destroyed.every((n) => !n.gpu)).toBe(true);
  });
});
