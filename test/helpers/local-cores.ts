// Tender cores on the local provider for integration tests (real agent processes, a real
// ledger in a temp folder): what each test opens is torn down after it — every lease
// destroyed, every process under its folder killed, the folder removed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { CommandInput, RunView } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from './agent-bundle';

export interface LocalHome {
  root: string;
  home: string;
  /** A workspace holding hello.txt ("hi"). */
  work: string;
  /** A writer core on the home (closed after the test). `agentBundle`: the agent it pushes
   *  to its nodes, when not the built one (e.g. a wrapper around it). */
  open(opts?: { agentBundle?: string }): TenderCore;
  /** Closes a core before the test ends (a process that goes away). */
  close(core: TenderCore): Promise<void>;
}

/** Registers the cleanup for one test file; each call of the result makes a fresh home. */
export function useLocalHomes(prefix: string): () => LocalHome {
  const cores: TenderCore[] = [];
  const roots: string[] = [];
  afterEach(async () => {
    for (const c of cores.splice(0)) {
      await c.client.invoke('lease.destroyAll', {});
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
  return () => {
    const root = mkdtempSync(join(tmpdir(), prefix));
    roots.push(root);
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'hello.txt'), 'hi\n');
    return {
      root,
      home,
      work,
      open({ agentBundle = agentBundlePath() } = {}) {
        const core = TenderCore.open({ home, env: { TENDER_AGENT_BUNDLE: agentBundle } });
        cores.push(core);
        return core;
      },
      async close(core) {
        cores.splice(cores.indexOf(core), 1);
        await core.close();
      },
    };
  };
}

export async function runView(core: TenderCore, runId: string): Promise<RunView> {
  const v = await core.client.invoke('run.get', { runId });
  if (!v.ok) throw new Error(v.error.message);
  return v.value;
}

/** Starts a run and waits for its end (teardown included). */
export async function runToEnd(
  core: TenderCore,
  input: CommandInput<'run.start'>,
): Promise<RunView> {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw new Error(started.error.message);
  await core.waitRun(started.value.id);
  return runView(core, started.value.id);
}
