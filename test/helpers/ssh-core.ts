import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobSpecInput } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { DEFAULT_TIMING, type Timing } from '../../src-main/services/settings/timing';
import { writeHosts } from '../../src-main/providers/ssh/hosts-file';
import { agentBundlePath } from './agent-bundle';
import { afterEach } from 'vitest';
import { startSshd, type SshdFixture } from './sshd';

/** A Tender core whose hosts.toml names the given sshd fixtures `h0`, `h1`, … */
export function sshCore(fixtures: SshdFixture[], timing: Partial<Timing> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'tender-sshcore-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  mkdirSync(home, { recursive: true });
  const hosts = fixtures.map((f, i) => {
    const keyFile = join(root, `key-${i}`);
    writeFileSync(keyFile, f.clientKey.privateKey);
    chmodSync(keyFile, 0o600);
    return { name: `h${i}`, host: f.host, port: f.port, user: f.user, identityFile: keyFile };
  });
  writeHosts(home, hosts);
  const core = TenderCore.open({
    home,
    env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
    timing: {
      ...timing,
      deadlines: { ...DEFAULT_TIMING.deadlines, connectMs: 30_000, ...timing.deadlines },
      endpointPollMs: 200,
      destroyPollMs: 200,
    },
  });
  return {
    root,
    home,
    work,
    core,
    hosts,
    async close() {
      await core.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export function sshJob(work: string, extra: Partial<JobSpecInput> = {}): JobSpecInput {
  return {
    name: 'ssh-job',
    run: 'cat hello.txt',
    workspace: { workdir: work, exclude: [] },
    ...extra,
  };
}

export async function runOnHosts(core: TenderCore, job: JobSpecInput, hosts: string[]) {
  const started = await core.client.invoke('run.start', {
    job,
    pool: { provider: 'ssh', hosts },
    keep: false,
  });
  if (!started.ok) throw new Error(started.error.message);
  await core.waitRun(started.value.id);
  const view = await core.client.invoke('run.get', { runId: started.value.id });
  if (!view.ok) throw new Error(view.error.message);
  return view.value;
}

/** A fresh sshd and a core whose hosts.toml names it `h0`, each call; both stopped after
 *  each test (call at the top of a test file). */
export function useSshHosts(): () => Promise<{ f: SshdFixture } & ReturnType<typeof sshCore>> {
  const fixtures: SshdFixture[] = [];
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
    for (const f of fixtures.splice(0)) await f.stop();
  });
  return async () => {
    const f = await startSshd();
    fixtures.push(f);
    const t = sshCore([f]);
    closers.push(() => t.close());
    return { f, ...t };
  };
}
