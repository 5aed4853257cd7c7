// Records are the user's alone (issue 27): after a real run, nothing in the data folder and
// nothing under ~/.tender on a node has a group or other bit — not the ledger and its
// -wal/-shm, the logs, receipts, outputs, the pushed workspace, the cached agent. Each
// walk also runs inside the job, while the node's folder and the ledger's WAL are live.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TenderCore } from '../../src-main/core/tender-core';
import type { RunView } from '../../src-main/contract';
import { runToEnd, useLocalHomes } from '../helpers/local-cores';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { runOnHosts, sshCore, sshJob } from '../helpers/ssh-core';

/** Every entry under `root` (itself included) with a group or other bit; symlinks, whose
 *  own mode means nothing, aside. Also how many entries were looked at. */
function looseEntries(root: string): { loose: string[]; walked: number } {
  const loose: string[] = [];
  let walked = 0;
  const visit = (path: string) => {
    const st = lstatSync(path);
    walked++;
    if (st.isSymbolicLink()) return;
    if ((st.mode & 0o077) !== 0) loose.push(`${(st.mode & 0o777).toString(8)} ${path}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return { loose, walked };
}

/** A run command that makes an output, then lists (as `LOOSE <mode> <path>`) whatever under
 *  `root` has a group or other bit, while the run is live. */
function walkingRun(root: string): string {
  return (
    'mkdir -p out && echo 42 > out/result.txt && ' +
    `find ${root} ! -type l -perm /077 -printf 'LOOSE %m %p\\n'; ` +
    `echo "WALKED $(find ${root} | wc -l)"`
  );
}

async function jobLines(core: TenderCore, run: RunView): Promise<string[]> {
  const out = await core.client.invoke('logs.read', { runId: run.id, channel: 'agent' });
  if (!out.ok) throw new Error(out.error.message);
  return out.value.records.filter((r) => r.source === 'run').map((r) => r.line);
}

function walkedCount(lines: string[]): number {
  const line = lines.find((l) => l.startsWith('WALKED '));
  return Number(line?.slice('WALKED '.length) ?? 0);
}

const newHome = useLocalHomes('tender-modes-');

describe('records written 0600/0700', () => {
  it('local provider: the data folder during and after a run', async () => {
    const h = newHome();
    const core = h.open();
    const run = await runToEnd(core, {
      job: {
        name: 't',
        setup: 'echo setting up',
        run: walkingRun(h.home),
        outputs: ['out/result.txt'],
        workspace: { workdir: h.work, exclude: [] },
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const lines = await jobLines(core, run);
    expect(lines.filter((l) => l.startsWith('LOOSE'))).toEqual([]);
    // The walk saw the ledger, its WAL, the logs, the lease folder and its workspace.
    expect(walkedCount(lines)).toBeGreaterThan(20);

    const after = looseEntries(h.home);
    expect(after.loose).toEqual([]);
    const outputs = join(h.home, 'runs', run.id, 'node-0', 'outputs', 'out', 'result.txt');
    expect(lstatSync(outputs).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(h.home, 'ledger.sqlite')).mode & 0o777).toBe(0o600);
  });
});

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

describe('records written 0600/0700 on a node (ssh, real sshd, a fresh user)', () => {
  it('~/.tender and everything in it, during and after a run; the data folder too', async () => {
    const f = await startSshd();
    fixtures.push(f);
    const t = sshCore([f]);
    closers.push(() => t.close());
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(t.work, 'hello.txt'), 'hello\n');
    const run = await runOnHosts(
      t.core,
      sshJob(t.work, { run: walkingRun('"$HOME"/.tender'), outputs: ['out/result.txt'] }),
      ['h0'],
    );
    expect(run.status, run.failedReason ?? '').toBe('completed');
    const lines = await jobLines(t.core, run);
    expect(lines.filter((l) => l.startsWith('LOOSE'))).toEqual([]);
    expect(walkedCount(lines)).toBeGreaterThan(10);

    expect(looseEntries(join(f.home, '.tender')).loose).toEqual([]);
    expect(lstatSync(join(f.home, '.tender')).mode & 0o777).toBe(0o700);
    expect(looseEntries(t.home).loose).toEqual([]);
  }, 60_000);
});
