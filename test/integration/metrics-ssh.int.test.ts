// Metrics over a real sshd: a job appends JSON lines to $TENDER_METRICS while its agent
// link is cut again and again; every line reaches the app's datastream as a `metrics`
// record with the node log's seq, none missing, none twice, and `run.metrics` reads them
// as one series with every step. Needs root (the sshd fixture); build the agent first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src-main/contract';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { sshCore, sshJob } from '../helpers/ssh-core';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

const STEPS = 300;

describe('metrics over ssh', () => {
  it('arrive in the datastream with no gap and no duplicate across cuts of the agent link', async () => {
    const f = await startSshd();
    fixtures.push(f);
    const t = sshCore([f]);
    closers.push(() => t.close());
    const { core } = t;
    const job = sshJob(t.work, {
      run: [
        `i=0; while [ $i -lt ${STEPS} ]; do i=$((i+1));`,
        '  echo "{\\"step\\":$i,\\"loss\\":$((1000-i))}" >> "$TENDER_METRICS"; echo "out $i"; sleep 0.02;',
        'done',
        // The last line without its newline: flushed when the phase exits.
        `printf '{"step":${STEPS + 1},"loss":0}' >> "$TENDER_METRICS"`,
      ].join('\n'),
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
    expect(cuts).toBeGreaterThanOrEqual(5); // the job ran long enough to be cut many times
    const view = await core.client.invoke('run.get', { runId });
    expect(view.ok && view.value.status).toBe('completed');

    const app: LogRecord[] = [];
    for (let from = 1; ;) {
      const page = await core.client.invoke('logs.read', {
        runId,
        channel: 'agent',
        fromSeq: from,
        limit: 50_000,
      });
      if (!page.ok) throw new Error(page.error.message);
      if (page.value.records.length === 0) break;
      app.push(...page.value.records);
      from = page.value.records.at(-1)!.seq + 1;
    }
    const label = core.ledger.nodesOfRun(runId)[0]!.label;
    const onNode = readFileSync(
      join(f.home, '.tender', 'nodes', label, 'logs', 'log.jsonl'),
      'utf8',
    )
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seq: number; src: string; line: string })
      .filter((r) => r.src === 'metrics');
    const inApp = app.filter((r) => r.source === 'metrics');
    // The same records, seq for seq: nothing lost at a cut, nothing delivered twice.
    expect(inApp.map((r) => [r.seq, r.line])).toEqual(onNode.map((r) => [r.seq, r.line]));
    expect(new Set(inApp.map((r) => r.seq)).size).toBe(inApp.length);
    const steps = inApp.map((r) => (JSON.parse(r.line) as { step: number }).step);
    expect(steps).toEqual(Array.from({ length: STEPS + 1 }, (_, i) => i + 1));
    expect(app.filter((r) => r.source === 'run')).toHaveLength(STEPS);

    const read = await core.client.invoke('run.metrics', { runId });
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.skipped).toBe(0);
    expect(read.value.lastSeq).toBe(app.at(-1)!.seq);
    expect(read.value.series.map((s) => [s.nodeId, s.cellId, s.name])).toEqual([
      [`${runId}/node-0`, null, 'loss'],
    ]);
    const points = read.value.series[0]!.points;
    expect(points.map(([x]) => x)).toEqual(steps);
    expect(points.at(-1)).toEqual([STEPS + 1, 0]);
    // Polled from where the last read ended: nothing new.
    const next = await core.client.invoke('run.metrics', {
      runId,
      nodeName: 'node-0',
      fromSeq: read.value.lastSeq + 1,
    });
    expect(next.ok && next.value).toEqual({ series: [], skipped: 0, lastSeq: read.value.lastSeq });

    const events = await core.client.invoke('logs.read', { runId, channel: 'events' });
    expect(events.ok && events.value.records.some((r) => r.line.startsWith('link lost'))).toBe(
      true,
    );
    const down = await core.client.invoke('lease.destroyAll', {});
    expect(down.ok && down.value.allConfirmed).toBe(true);
  });
});
