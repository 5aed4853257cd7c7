// The experiment of issue 27: a data folder someone else can write to, and one line planted
// in the agent Tender caches there. Tender must never run the planted line: an unsafe
// folder is refused (naming it and the fix), and in a folder of ours a cached agent whose
// sha256 is wrong is written again before anything runs it.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import { TenderError } from '../../src-main/base/tender-error';
import { agentBundlePath } from '../helpers/agent-bundle';
import { runToEnd, useLocalHomes, type LocalHome } from '../helpers/local-cores';

const newHome = useLocalHomes('tender-trust-');
const NOBODY = 65534;

async function runHello(core: TenderCore, work: string) {
  return runToEnd(core, {
    job: { name: 't', run: 'cat hello.txt', workspace: { workdir: work, exclude: [] } },
    pool: { provider: 'local', count: 1, verify: [] },
    keep: false,
  });
}

/** Runs once so the agent is cached, then plants a line in it that leaves `marker`. */
async function plantedHome(): Promise<LocalHome & { cached: string; marker: string }> {
  const h = newHome();
  const core = h.open();
  expect((await runHello(core, h.work)).status).toBe('completed');
  await h.close(core);
  const dir = join(h.home, 'local', 'cache', 'agent');
  const [name] = readdirSync(dir).filter((f) => f.endsWith('.cjs'));
  const cached = join(dir, name!);
  const marker = join(h.root, 'PLANTED-CODE-RAN');
  const planted = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`;
  writeFileSync(cached, planted + readFileSync(cached, 'utf8'));
  return { ...h, cached, marker };
}

function openRefused(h: LocalHome): TenderError {
  try {
    h.open();
  } catch (err) {
    if (err instanceof TenderError) return err;
    throw err;
  }
  throw new Error(`${h.home} was opened`);
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('a planted agent in the data folder', () => {
  it('in a folder of ours: the cached agent is written again, the planted line never runs', async () => {
    const h = await plantedHome();
    const core = h.open();
    const run = await runHello(core, h.work);
    expect(run.status).toBe('completed');
    expect(existsSync(h.marker)).toBe(false);
    expect(sha256(h.cached)).toBe(sha256(agentBundlePath()));
    const boot = await core.client.invoke('logs.read', { runId: run.id, channel: 'bootstrap' });
    expect(boot.ok && boot.value.records.map((r) => r.line).join('\n')).toMatch(
      /the cached agent .* does not match its sha256 .*never running it/,
    );
  });

  it("in another user's 0777 folder: refused before anything runs, naming the folder and the fix", async () => {
    const h = await plantedHome();
    chmodSync(h.home, 0o777);
    chownSync(h.home, NOBODY, NOBODY);
    const err = openRefused(h);
    expect(err.message).toContain(h.home);
    expect(err.message).toMatch(/belongs to another user/);
    expect(err.hint).toMatch(/choose a folder of your own with TENDER_HOME/);
    expect(existsSync(h.marker)).toBe(false);
  });

  it('in a 0777 folder of ours: refused, naming the folder and chmod 700', async () => {
    const h = await plantedHome();
    chmodSync(h.home, 0o777);
    const err = openRefused(h);
    expect(err.message).toContain(h.home);
    expect(err.message).toMatch(/writable by others \(mode 0777\)/);
    expect(err.hint).toContain(`chmod 700 ${h.home}`);
    expect(existsSync(h.marker)).toBe(false);
  });
});
