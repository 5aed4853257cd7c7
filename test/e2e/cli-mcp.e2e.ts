// `tender mcp` driven by an MCP client built with the same SDK, over stdio, as Claude Code or
// Cursor would: the built CLI as a child process with its own TENDER_HOME. It lists the
// tools, runs a job on the local provider, polls its status, reads its logs and metrics,
// cancels a second run, tears down what it started — and no secret given to a run reaches a
// tool result.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { connectStdio, MCP_REQUEST_MS } from '../helpers/mcp-stdio';
import { timeBudget, untilAsync } from '../helpers/wait';

const newHome = useTempHomes();
const SECRET = 'hf_e2e_mcp_9f8a7b6c5d';

const TRAIN = `echo training with $HF_TOKEN
for i in 1 2 3; do
  echo "step $i"
  echo "{\\"step\\": $i, \\"loss\\": 0.$((4-i))}" >> "$TENDER_METRICS"
  sleep 0.2
done
echo done`;

/** Shared by every wait of a test, under e2e's 120 s timeout (the test takes ~10 s). */
const TEST_BUDGET_MS = 110_000;

async function connect(home: string, args: string[]) {
  // stdout is the protocol: a stray line there is an error the client reports (protocolErrors).
  const mcp = await connectStdio({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: cliEnv(home, { HF_TOKEN: SECRET }),
    clientName: 'e2e-agent',
  });
  const results: CallToolResult[] = [];
  const call = async (name: string, args: Record<string, unknown> = {}, timeoutMs?: number) => {
    const r = await mcp.call(name, args, timeoutMs);
    results.push(r);
    return r;
  };
  return { ...mcp, call, results };
}

const text = (r: CallToolResult) =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const data = (r: CallToolResult) => r.structuredContent as Json;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

async function pollUntilEnded(
  call: (n: string, a: Json, timeoutMs?: number) => Promise<CallToolResult>,
  runId: string,
  ms: number,
) {
  let last: Json | null = null;
  return untilAsync(
    async () => {
      last = data(await call('tender_status', { run_id: runId }, ms)).runs[0] as Json;
      return last.status !== 'pending' && last.status !== 'running' ? last : null;
    },
    { ms, what: `run ${runId} to end`, everyMs: 200, describe: () => JSON.stringify(last) },
  );
}

describe('tender mcp over stdio', () => {
  it('an agent runs a job on the local provider, reads its logs and metrics, cancels a run and tears down what it started', async () => {
    const budget = timeBudget(TEST_BUDGET_MS);
    const { home, root } = newHome();
    const job = writeJob(
      root,
      'train',
      [
        '[job]',
        'name = "train"',
        'run = "sh train.sh"',
        'env = { HF_TOKEN = { secret = true, from_env = "HF_TOKEN" } }',
      ].join('\n') + '\n',
      { 'train.sh': TRAIN },
    );
    const slow = writeJob(root, 'slow', '[job]\nname = "slow"\nrun = "echo begun; sleep 600"\n');
    const agent = await connect(home, ['--budget', '1', '--max-nodes', '3']);
    try {
      const tools = (await agent.client.listTools(undefined, { timeout: MCP_REQUEST_MS })).tools;
      expect(tools.map((t) => t.name).sort()).toEqual([
        'tender_cancel',
        'tender_down',
        'tender_logs',
        'tender_metrics',
        'tender_offers',
        'tender_run',
        'tender_status',
      ]);
      for (const t of tools) expect(t.outputSchema, t.name).toBeDefined();
      expect(tools.find((t) => t.name === 'tender_run')!.description).toMatch(/default 2h/);

      const started = await agent.call('tender_run', { job_file: job });
      expect(started.isError, text(started)).toBeFalsy();
      const runId = data(started).run.run_id as string;
      expect(data(started)).toMatchObject({ commits_usd: 0, max_duration: '2h' });
      expect(data(started).run.origin).toBe('mcp:e2e-agent');
      expect(text(started)).toMatch(new RegExp(`started ${runId}`));

      const ended = await pollUntilEnded(agent.call, runId, budget.left(30_000));
      expect(ended.status, ended.failed_reason).toBe('completed');
      expect(ended.nodes[0].stage).toBe('destroyed');

      const tail = await agent.call('tender_logs', { run_id: runId, tail: 2 });
      expect(data(tail).lines.map((l: Json) => l.text)).toEqual(['done', 'run exited with code 0']);
      const all = await agent.call('tender_logs', { run_id: runId, from_seq: 1 });
      const lines = data(all).lines.map((l: Json) => l.text) as string[];
      expect(lines).toEqual(expect.arrayContaining(['training with ***', 'step 1', 'step 3']));
      expect(lines.join('\n')).not.toMatch(/"loss"/); // metrics are data, not lines
      const after = await agent.call('tender_logs', {
        run_id: runId,
        from_seq: data(all).next_seq,
      });
      expect(data(after).lines).toEqual([]);
      expect(data(after).next_seq).toBe(data(all).next_seq);

      const metrics = await agent.call('tender_metrics', { run_id: runId });
      expect(data(metrics).series).toEqual([
        expect.objectContaining({
          node: 'node-0',
          name: 'loss',
          count: 3,
          last: [3, 0.1],
        }),
      ]);

      const resource = await agent.client.readResource(
        { uri: `tender://runs/${runId}/log` },
        { timeout: MCP_REQUEST_MS },
      );
      expect(JSON.stringify(resource.contents[0])).toMatch(/step 2/);
      const prompt = await agent.client.getPrompt(
        { name: 'tender_howto' },
        { timeout: MCP_REQUEST_MS },
      );
      expect(JSON.stringify(prompt.messages)).toMatch(/tender_offers/);

      // A second run, cancelled while it runs.
      const second = await agent.call('tender_run', { job_file: slow, max_duration: '10m' });
      const slowId = data(second).run.run_id as string;
      let logs: Json | null = null;
      await untilAsync(
        async () => {
          logs = data(await agent.call('tender_logs', { run_id: slowId, tail: 20 }));
          if (logs.status !== 'running' && logs.status !== 'pending')
            throw new Error(`run ${slowId} ended ${logs.status} before its job began`);
          return logs.lines.some((l: Json) => l.text === 'begun');
        },
        {
          ms: budget.left(30_000),
          what: `run ${slowId}'s first line ('begun')`,
          everyMs: 200,
          describe: () => JSON.stringify(logs),
        },
      );
      const cancel = await agent.call('tender_cancel', { run_id: slowId });
      expect(cancel.isError, text(cancel)).toBeFalsy();
      expect((await pollUntilEnded(agent.call, slowId, budget.left(30_000))).status).toBe(
        'cancelled',
      );

      // A third, torn down with tender_down.
      const third = await agent.call('tender_run', { job_file: slow });
      const thirdId = data(third).run.run_id as string;
      const down = await agent.call('tender_down', { target: thirdId });
      expect(down.isError, text(down)).toBeFalsy();
      expect(data(down).all_confirmed).toBe(true);

      const session = data(await agent.call('tender_status', {}));
      expect(session.runs.map((r: Json) => r.run_id)).toEqual([runId, slowId, thirdId]);
      expect(session.session).toMatchObject({ budget_usd: 1, live_nodes: 0, max_nodes: 3 });

      // The secret reached the job (redacted in its log) and no tool result.
      for (const r of agent.results) expect(JSON.stringify(r)).not.toContain(SECRET);
      expect(agent.stderr()).not.toContain(SECRET);
      expect(agent.protocolErrors).toEqual([]);
    } finally {
      await agent.close();
    }
    // Nothing of the session is left billing or running.
    const status = await runCli(['status', '--json'], { home });
    const seen = JSON.parse(status.stdout) as {
      leases: { state: string }[];
      runs: { origin: string | null }[];
    };
    expect(seen.leases.filter((l) => l.state !== 'destroyed')).toEqual([]);
    // Attributable: every run of the session says who started it.
    expect(seen.runs.map((r) => r.origin)).toEqual([
      'mcp:e2e-agent',
      'mcp:e2e-agent',
      'mcp:e2e-agent',
    ]);
    // Nor any file of the data folder: the ledger (and its WAL), the stored log, receipts.
    const holding = filesUnder(home).filter((f) => readFileSync(f).includes(SECRET));
    expect(holding).toEqual([]);
  });

  it('refuses to start without --budget, naming --budget none; prints the config clients take', async () => {
    const { home } = newHome();
    const none = await runCli(['mcp'], { home });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/needs --budget[\s\S]*--budget none/);
    expect(none.stdout).toBe('');

    const printed = await runCli(['mcp', '--budget', '2.5', '--max-nodes', '2', '--print-config'], {
      home,
    });
    expect(printed.code, printed.stderr).toBe(0);
    const config = JSON.parse(printed.stdout) as {
      mcpServers: { tender: { command: string; args: string[]; env?: Record<string, string> } };
    };
    expect(config.mcpServers.tender).toEqual({
      command: process.execPath,
      args: [CLI, 'mcp', '--budget', '2.5', '--max-nodes', '2'],
      env: { TENDER_HOME: home },
    });
  });
});
