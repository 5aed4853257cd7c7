// A node that sends an output stream the unpacker refuses (an entry that climbs out of the
// landing folder) gives a failed run that says its outputs were not collected, and the
// CLI's exit code 3, not a completed run with exit 0. The node is the built agent behind a
// wrapper whose pack-outputs sends the crafted stream. Build first: `npm run build:agent`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STREAM_MARKER } from '../../src-agent/wire/marker';
import { BLOCK, encodeEntryHeaders, padding } from '../../src-agent/wire/tar/header';
import { summarize } from '../../src-main/cli/commands/run';
import { EXIT } from '../../src-main/cli/exit-codes';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from '../helpers/agent-bundle';

const cores: TenderCore[] = [];
const roots: string[] = [];

afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  for (const r of roots.splice(0)) {
    try {
      execFileSync('pkill', ['-KILL', '-f', r]);
    } catch {
      // nothing left running
    }
    rmSync(r, { recursive: true, force: true });
  }
});

/** The marker, then a tar whose one file is `../escaped.txt`. */
function craftedStream(): Buffer {
  const body = Buffer.from('planted\n');
  return Buffer.concat([
    Buffer.from(STREAM_MARKER),
    encodeEntryHeaders({
      path: '../escaped.txt',
      typeflag: '0',
      size: body.length,
      mode: 0o644,
      mtime: 0,
    }),
    body,
    Buffer.alloc(padding(body.length)),
    Buffer.alloc(2 * BLOCK),
  ]);
}

/** An agent bundle that is the built one, except that pack-outputs sends `stream`. */
function wrappedAgent(root: string): string {
  const stream = join(root, 'crafted.tar');
  writeFileSync(stream, craftedStream());
  const wrapper = join(root, 'agent-wrapper.cjs');
  writeFileSync(
    wrapper,
    `const fs = require('node:fs');
if (process.argv.includes('pack-outputs')) {
  process.stdout.write(fs.readFileSync(${JSON.stringify(stream)}), () => process.exit(0));
} else require(${JSON.stringify(agentBundlePath())});
`,
  );
  return wrapper;
}

describe('an output stream the unpacker refuses', () => {
  it('fails the run as outputs not collected (exit 3), though the job exited 0', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tender-refused-'));
    roots.push(root);
    const home = join(root, 'home');
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    const core = TenderCore.open({ home, env: { TENDER_AGENT_BUNDLE: wrappedAgent(root) } });
    cores.push(core);
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'refused',
        run: 'echo result > out.txt',
        outputs: ['out.txt'],
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitRun(started.value.id);
    const got = await core.client.invoke('run.get', { runId: started.value.id });
    if (!got.ok) throw new Error(got.error.message);
    const view = got.value;
    expect(view.nodes.map((n) => n.exitCode)).toEqual([0]); // the job itself succeeded
    expect(view.status).toBe('failed');
    expect(view.failedReason).toMatch(
      /^node-0: outputs not collected: .*refusing output path outside the landing folder: \.\.\/escaped\.txt/,
    );
    expect(summarize(view, false)).toBe(EXIT.infrastructure);
    // Nothing landed outside the run's outputs folder.
    expect(existsSync(join(view.outputsDir, '..', 'escaped.txt'))).toBe(false);
    expect(existsSync(join(root, 'escaped.txt'))).toBe(false);
  });
});
