// $TENDER_METRICS of the built agent, as real processes in a temp node folder: the lines a
// job appends arrive in the log as `metrics` records (seq'd with its output, the last one
// read before the phase's exit line, an unterminated one flushed), once each across setup,
// run and a new attempt, and a new job starts from an empty file. Build first:
// `npm run build:agent`.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentLogRecord, Phase, StartOutput } from '../../src-agent/wire/protocol';
import { AttachClient, killAgent, markedJson, runAgent } from '../helpers/agent-bundle';

const dirs: string[] = [];
const clients: AttachClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.kill();
  const done = dirs.splice(0);
  for (const d of done) await killAgent(d);
  for (const d of done) await rm(d, { recursive: true, force: true });
});

async function startedAgent(): Promise<{ dir: string; client: AttachClient }> {
  const dir = await mkdtemp(join(tmpdir(), 'tender-metrics-'));
  dirs.push(dir);
  const res = await runAgent(['start', '--dir', dir]);
  expect(res.code, res.stderr).toBe(0);
  markedJson<StartOutput>(res.stdout);
  const client = new AttachClient(dir);
  clients.push(client);
  await client.request('subscribe', { fromSeq: 1 });
  return { dir, client };
}

/** Starts `phase` and resolves once its exit is in (its `exited` event seen). */
async function runPhase(c: AttachClient, phase: Phase, command: string): Promise<void> {
  const before = exits(c, phase);
  await c.request('start', { phase, command });
  await c.waitFor((x) => exits(x, phase) > before);
}

const exits = (c: AttachClient, phase: Phase) =>
  c.events.filter((e) => e.ev === 'phase' && e.state.phase === phase && e.state.state === 'exited')
    .length;

const metrics = (records: AgentLogRecord[]) =>
  records.filter((r) => r.src === 'metrics').map((r) => r.line);

describe('TENDER_METRICS', () => {
  it("logs the job's metrics lines as records, before the phase's exit, the last one flushed", async () => {
    const { dir, client } = await startedAgent();
    await client.request('configure', {
      jobId: 'job-1',
      attempt: 0,
      secretEnv: { K: 'hunter2-secret' },
    });
    await runPhase(client, 'setup', 'echo "{\\"setup\\":1}" >> "$TENDER_METRICS"');
    await runPhase(
      client,
      'run',
      [
        'echo "path=$TENDER_METRICS"',
        'for i in 1 2 3; do echo "{\\"step\\":$i,\\"loss\\":0.$((10-i))}" >> "$TENDER_METRICS"; echo "line $i"; sleep 0.3; done',
        'printf "{\\"step\\":4,\\"note\\":\\"%s\\"," "$K" >> "$TENDER_METRICS"; sleep 0.4',
        'printf "\\"loss\\":0.5}" >> "$TENDER_METRICS"', // the last line without its newline
      ].join('\n'),
    );
    const records = client.records();
    expect(records.find((r) => r.src === 'run')?.line).toBe(`path=${join(dir, 'metrics.jsonl')}`);
    expect(metrics(records)).toEqual([
      '{"setup":1}',
      '{"step":1,"loss":0.9}',
      '{"step":2,"loss":0.8}',
      '{"step":3,"loss":0.7}',
      '{"step":4,"note":"***","loss":0.5}', // waited for across polls, flushed at exit, redacted
    ]);
    const m = records.filter((r) => r.src === 'metrics');
    expect(m.every((r) => r.stream === 'stdout')).toBe(true);
    const exitLine = records.find((r) => r.src === 'agent' && r.line === 'run exited with code 0')!;
    expect(m.at(-1)!.seq).toBeLessThan(exitLine.seq);
    // Polled while it ran: the first lines came long before the exit.
    const first = m[1]!;
    expect(records.findIndex((r) => r.seq === first.seq)).toBeLessThan(
      records.findIndex((r) => r.src === 'run' && r.line === 'line 3'),
    );
    // Same seqs as the node's log file: what a resumed subscription reads.
    const inFile = readFileSync(join(dir, 'logs', 'log.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AgentLogRecord)
      .filter((r) => r.src === 'metrics');
    expect(inFile.map((r) => [r.seq, r.line])).toEqual(m.map((r) => [r.seq, r.line]));
  });

  it('keeps the file for a new attempt (no line twice) and starts a new job from an empty one', async () => {
    const { dir, client } = await startedAgent();
    await client.request('configure', { jobId: 'job-1', attempt: 0 });
    await runPhase(client, 'run', 'echo "{\\"step\\":1}" >> "$TENDER_METRICS"');
    await client.request('configure', { jobId: 'job-1', attempt: 1 });
    await runPhase(client, 'run', 'echo "{\\"step\\":2}" >> "$TENDER_METRICS"');
    expect(metrics(client.records())).toEqual(['{"step":1}', '{"step":2}']);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"step":1}\n{"step":2}\n');

    await client.request('configure', { jobId: 'job-2', attempt: 0 });
    expect(existsSync(join(dir, 'metrics.jsonl'))).toBe(false);
    await runPhase(client, 'run', 'echo "{\\"other\\":1}" >> "$TENDER_METRICS"');
    expect(metrics(client.records())).toEqual(['{"step":1}', '{"step":2}', '{"other":1}']);
    expect(readFileSync(join(dir, 'metrics.jsonl'), 'utf8')).toBe('{"other":1}\n');
  });

  it('cuts a line over 64 KiB and says so once', async () => {
    const { client } = await startedAgent();
    await client.request('configure', { jobId: 'job-1', attempt: 0 });
    await runPhase(
      client,
      'run',
      'head -c 100000 /dev/zero | tr "\\0" x >> "$TENDER_METRICS"; echo >> "$TENDER_METRICS"; echo "{\\"ok\\":1}" >> "$TENDER_METRICS"',
    );
    const lines = metrics(client.records());
    expect(lines.map((l) => l.length)).toEqual([64 * 1024, 8]);
    expect(lines[1]).toBe('{"ok":1}');
    expect(client.records().filter((r) => /metrics: a line longer than/.test(r.line))).toHaveLength(
      1,
    );
  });
});
