// `tender status`'s text: who started each run (cli, app, mcp:<client>) beside its status.
import { describe, expect, it } from 'vitest';
import type { LeasePolicy, NodeView, StatusView } from '../../contract';
import { runView } from '../../contract/run-view.test-util';
import { statusText } from './status';

function node(logicalId: string): NodeView {
  return {
    id: `r-x/${logicalId}`,
    runId: 'r-x',
    logicalId,
    provider: 'local',
    stage: 'dormant',
    ready: true,
    bootstrapStage: null,
    leaseId: null,
    label: null,
    agentId: null,
    capabilities: null,
    failedReason: null,
    destroyReason: null,
    jobStatus: 'running',
    jobPhase: 'run',
    exitCode: null,
    linkState: 'connected',
    updatedAt: 0,
    stageSince: 0,
    stages: [],
    deadlineAt: null,
  };
}

function status(runs: StatusView['runs']): StatusView {
  return { runs, leases: [], orphans: [], unreachable: [] };
}

/** The runs table's cells of the columns named, by the header's column positions. */
function columns(text: string, names: string[]): string[][] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('RUN '));
  const head = lines[at]!;
  const starts = [...head.matchAll(/\S+/g)].map((m) => ({ name: m[0], from: m.index }));
  const cell = (line: string, name: string) => {
    const i = starts.findIndex((s) => s.name === name);
    return line.slice(starts[i]!.from, starts[i + 1]?.from).trim();
  };
  return lines
    .slice(at)
    .filter((l) => l.trim() !== '')
    .map((l) => names.map((n) => cell(l, n)));
}

describe('tender status: the ORIGIN column', () => {
  it('names who started each run, once per run, and "-" for a run without one', () => {
    const text = statusText(
      status([
        runView({
          id: 'r-mcp001',
          origin: 'mcp:claude-code',
          nodes: [node('node-0'), node('node-1')],
        }),
        runView({ id: 'r-cli001', origin: 'cli', nodes: [node('node-0')] }),
        runView({ id: 'r-old001', origin: null, nodes: [node('node-0')] }),
      ]),
      null,
    );

    expect(columns(text, ['RUN', 'STATUS', 'ORIGIN', 'NODE'])).toEqual([
      ['RUN', 'STATUS', 'ORIGIN', 'NODE'],
      ['r-mcp001', 'running', 'mcp:claude-code', 'node-0'],
      ['', '', '', 'node-1'],
      ['r-cli001', 'running', 'cli', 'node-0'],
      ['r-old001', 'running', '-', 'node-0'],
    ]);
  });
});

describe('tender status: the GPU idle rule', () => {
  it('prints each run’s rule and, per node, what fired', () => {
    const rule = { belowPct: 10, forMs: 1_800_000, then: 'stop' as const };
    const policy: LeasePolicy = {
      maxDurationMs: null,
      idleTimeoutMs: null,
      budgetUsd: null,
      afterJob: 'destroy',
      unreachableGraceMs: 1_800_000,
      gpuIdle: rule,
    };
    const fired: NodeView = {
      ...node('node-1'),
      gpuIdleFired: {
        at: Date.now() - 120_000,
        rule,
        idleForMs: 1_800_000,
        did: 'stopped_job',
        reason: 'GPU idle rule: every GPU under 10% for 30m while the job ran',
      },
    };
    const text = statusText(
      status([
        runView({ id: 'r-idle01', policy, nodes: [node('node-0'), fired] }),
        runView({ id: 'r-none01', nodes: [node('node-0')] }),
      ]),
      null,
    );
    const lines = text.split('\n');
    expect(lines).toContain('r-idle01: GPU idle rule: stop after 30m under 10%');
    expect(lines).toContain(
      '  node-1: fired: every GPU under 10% for 30m while the job ran — stopped the job (2m ago)',
    );
    expect(text).not.toContain('r-none01: GPU idle rule');
    expect(text).not.toContain('node-0: fired');
  });
});
