// Who started a run, through the contract to the ledger and back (real SQLite, the local
// provider): the origin a request gives is stored with the run, read back by a second
// process's reader, shown in run.get and status.get; a rerun carries who reran it; a bad
// origin is refused as data before anything is written.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { Ledger } from '../../src-main/ledger/ledger';
import { agentBundlePath } from '../helpers/agent-bundle';

const cores: TenderCore[] = [];
const roots: string[] = [];

afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'tender-origin-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hi\n');
  const core = TenderCore.open({ home, env: { TENDER_AGENT_BUNDLE: agentBundlePath() } });
  cores.push(core);
  const input = (origin?: string): CommandInput<'run.start'> => ({
    job: { name: 't', run: 'cat hello.txt', workspace: { workdir: work, exclude: [] } },
    pool: { provider: 'local', count: 1, verify: [] },
    ...(origin !== undefined ? { origin } : {}),
  });
  return { home, core, input };
}

async function ok<T>(
  p: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>,
) {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('a run carries its origin', () => {
  it('from run.start to the ledger, run.get, status.get and a rerun', async () => {
    const { home, core, input } = setup();

    const byAgent = await ok(core.client.invoke('run.start', input(' mcp:claude-code ')));
    expect(byAgent.origin).toBe('mcp:claude-code');
    await core.waitRun(byAgent.id);
    const none = await ok(core.client.invoke('run.start', input()));
    await core.waitRun(none.id);
    const again = await ok(core.client.invoke('run.rerun', { runId: byAgent.id, origin: 'cli' }));
    await core.waitRun(again.id);

    expect((await ok(core.client.invoke('run.get', { runId: byAgent.id }))).origin).toBe(
      'mcp:claude-code',
    );
    const status = await ok(core.client.invoke('status.get', {}));
    const originOf = Object.fromEntries(status.runs.map((r) => [r.id, r.origin]));
    expect(originOf).toEqual({
      [byAgent.id]: 'mcp:claude-code',
      [none.id]: null,
      [again.id]: 'cli',
    });
    expect(status.runs.find((r) => r.id === byAgent.id)?.status).toBe('completed');
    // The journal says who started it, beside what and where.
    expect(core.ledger.journal(byAgent.id)[0]).toMatchObject({
      kind: 'run.created',
      data: { origin: 'mcp:claude-code', provider: 'local' },
    });

    // Another process reads the same file.
    const reader = Ledger.openReader(home)!;
    try {
      expect(reader.getRun(byAgent.id)?.origin).toBe('mcp:claude-code');
      expect(reader.getRun(none.id)?.origin).toBeNull();
    } finally {
      reader.close();
    }
  });

  it('refuses a bad origin as data, before anything is written', async () => {
    const { core, input } = setup();
    for (const origin of ['mcp:\u001b[2Jcli', 'x'.repeat(81), '  ']) {
      const r = await core.client.invoke('run.start', input(origin));
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe('bad_request');
        expect(r.error.message).toMatch(/^origin: /);
      }
    }
    expect(core.ledger.listRuns()).toEqual([]);
  });
});
