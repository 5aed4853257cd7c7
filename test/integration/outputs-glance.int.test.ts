// The final collection asks the agent first (`outputs.glance`, on the control link) and
// starts no `pack-outputs` process on the node when the set holds no file: the folders
// land as a pull would leave them and missing paths are named as before. A set with a file
// is pulled as always. The node is the built agent behind a wrapper that counts each
// pack-outputs it is asked for. Build first: `npm run build:agent`.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from '../helpers/agent-bundle';

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

/** The built agent, except that each pack-outputs first appends a line to `count`. */
function countingAgent(root: string, count: string): string {
  const wrapper = join(root, 'agent-wrapper.cjs');
  writeFileSync(
    wrapper,
    `if (process.argv.includes('pack-outputs')) require('node:fs').appendFileSync(${JSON.stringify(count)}, 'pack\\n');
require(${JSON.stringify(agentBundlePath())});
`,
  );
  return wrapper;
}

async function runJob(job: { run: string; outputs: string[] }) {
  const root = mkdtempSync(join(tmpdir(), 'tender-glance-'));
  roots.push(root);
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hi\n');
  const count = join(root, 'pack-count');
  const core = TenderCore.open({
    home: join(root, 'home'),
    env: { TENDER_AGENT_BUNDLE: countingAgent(root, count) },
  });
  cores.push(core);
  const started = await core.client.invoke('run.start', {
    job: { name: 'glance', ...job, workspace: { workdir: work, exclude: [] } },
    pool: { provider: 'local', count: 1, verify: [] },
    keep: false,
  });
  if (!started.ok) throw new Error(started.error.message);
  await core.waitRun(started.value.id);
  const got = await core.client.invoke('run.get', { runId: started.value.id });
  if (!got.ok) throw new Error(got.error.message);
  const events = await core.client.invoke('logs.read', {
    runId: started.value.id,
    channel: 'events',
    limit: 100_000,
  });
  if (!events.ok) throw new Error(events.error.message);
  const packs = existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean) : [];
  const outputs = events.value.records.map((r) => r.line).filter((l) => l.startsWith('outputs:'));
  return { view: got.value, packs: packs.length, outputs };
}

describe('the final collection of an output set with no file', () => {
  it('starts no pack-outputs: the folders land, missing paths are named', async () => {
    const r = await runJob({
      run: 'mkdir -p ckpt/empty "$TENDER_OUTPUT/logs" && echo done',
      outputs: ['ckpt', 'result.txt'],
    });
    expect(r.view.status).toBe('completed');
    expect(r.packs).toBe(0);
    expect(r.outputs).toEqual([
      expect.stringMatching(/^outputs: 0 files, 0 bytes in .*; missing: result\.txt$/),
    ]);
    const dir = join(r.view.outputsDir, 'node-0', 'outputs');
    expect(readdirSync(dir).sort()).toEqual(['_output', 'ckpt']);
    expect(readdirSync(join(dir, 'ckpt'))).toEqual(['empty']);
    expect(readdirSync(join(dir, '_output'))).toEqual(['logs']);
  });

  it('pulls as always once the set holds a file', async () => {
    const r = await runJob({
      run: 'echo 42 > "$TENDER_OUTPUT/score.txt"',
      outputs: [],
    });
    expect(r.view.status).toBe('completed');
    expect(r.packs).toBe(1);
    const dir = join(r.view.outputsDir, 'node-0', 'outputs');
    expect(readFileSync(join(dir, '_output', 'score.txt'), 'utf8')).toBe('42\n');
  });
});
