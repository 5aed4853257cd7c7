// The final collection asks the agent first (`outputs.glance`, on the control link) and
// starts no `pack-outputs` process on the node when the set holds no file: the folders
// land as a pull would leave them and missing paths are named as before. A set with a file
// is pulled as always. The node is the built agent behind a wrapper that counts each
// pack-outputs it is asked for. Build first: `npm run build:agent`.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentBundlePath } from '../helpers/agent-bundle';
import { runToEnd, useLocalHomes } from '../helpers/local-cores';

const newHome = useLocalHomes('tender-glance-');

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
  const h = newHome();
  const count = join(h.root, 'pack-count');
  const core = h.open({ agentBundle: countingAgent(h.root, count) });
  const view = await runToEnd(core, {
    job: { name: 'glance', ...job, workspace: { workdir: h.work, exclude: [] } },
    pool: { provider: 'local', count: 1, verify: [] },
    keep: false,
  });
  const events = await core.client.invoke('logs.read', {
    runId: view.id,
    channel: 'events',
    limit: 100_000,
  });
  if (!events.ok) throw new Error(events.error.message);
  const packs = existsSync(count) ? readFileSync(count, 'utf8').split('\n').filter(Boolean) : [];
  const outputs = events.value.records.map((r) => r.line).filter((l) => l.startsWith('outputs:'));
  return { view, packs: packs.length, outputs };
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
