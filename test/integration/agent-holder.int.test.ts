// `tender-agent start --holder` (a Slurm allocation's way): the daemon is started by the
// process that holds the node — here a shell loop standing in for the batch script — which
// waits for D/holder.cmd and execs it; `start` hands it the command and waits for hello.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StartOutput } from '../../src-agent/wire/protocol';
import { parseAfterMarker } from '../../src-main/transport/exec-helpers';
import { agentBundlePath } from '../helpers/agent-bundle';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    try {
      execFileSync('pkill', ['-KILL', '-f', d]);
    } catch {
      // nothing left
    }
    rmSync(d, { recursive: true, force: true });
  }
});

describe('agent start --holder', () => {
  it('the holder runs the daemon as itself; start reports its pid', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tender-holder-'));
    dirs.push(root);
    const d = join(root, 'node');
    const holder = spawn(
      'bash',
      [
        '-c',
        `mkdir -p ${d}; while [ ! -f ${d}/holder.cmd ]; do sleep 0.05; done; exec bash ${d}/holder.cmd`,
      ],
      {
        stdio: 'ignore',
      },
    );
    const out = execFileSync(
      process.execPath,
      [agentBundlePath(), 'start', '--dir', d, '--holder', '--agent-id', 'ag-holder'],
      {
        encoding: 'utf8',
      },
    );
    const started = parseAfterMarker<StartOutput>(out);
    // exec keeps the holder's pid: the daemon is the holder's process, as in an allocation.
    expect(started).toMatchObject({ pid: holder.pid, alreadyRunning: false });
    const exited = new Promise<number | null>((r) => holder.once('exit', (code) => r(code)));
    process.kill(holder.pid!, 'SIGTERM');
    expect(await exited).toBe(0); // the daemon's own clean shutdown ends the holder
  });

  it('says so when no holder takes the command (after its 15 s)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'tender-holder-'));
    dirs.push(root);
    let failed: { status: number | null; stdout: string } | null = null;
    try {
      execFileSync(
        process.execPath,
        [agentBundlePath(), 'start', '--dir', join(root, 'n'), '--holder'],
        {
          encoding: 'utf8',
          env: { ...process.env, TENDER_AGENT_START_TIMEOUT_MS: '500' },
        },
      );
    } catch (err) {
      failed = err as { status: number | null; stdout: string };
    }
    expect(failed?.status).toBe(1);
    expect(failed?.stdout).toMatch(/the node's holder did not start the agent/);
  }, 30_000);
});
