// Setup cached by default, over real SSH: a BYO host kept warm (`after_job = "keep_warm"`),
// a job with a setup and no `setup_fingerprint`. Editing the code and running again skips
// setup; editing requirements.txt builds the environment again; the README's setup line
// (`python -m venv $TENDER_ENV && …`) works without a fingerprint; `setup_cache = false`
// runs setup every time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput, JobSpecInput, RunView } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { sshCore, sshJob } from '../helpers/ssh-core';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

async function start(core: TenderCore, input: CommandInput<'run.start'>): Promise<RunView> {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw Object.assign(new Error(started.error.message), started.error);
  await core.waitRun(started.value.id);
  const view = await core.client.invoke('run.get', { runId: started.value.id });
  if (!view.ok) throw new Error(view.error.message);
  return view.value;
}

async function agentLines(core: TenderCore, run: RunView): Promise<string[]> {
  const out = await core.client.invoke('logs.read', { runId: run.id, channel: 'agent' });
  return out.ok ? out.value.records.map((r) => r.line) : [];
}

// The README's setup line without the download (this machine has no internet): a real venv
// at $TENDER_ENV, each build counted in the host user's HOME.
const SETUP = 'python3 -m venv $TENDER_ENV && echo built >> $HOME/setup-runs';
const RUN =
  "python -c \"import sys; print(sys.prefix == __import__('os').environ['TENDER_ENV'])\" && cat train.py";

async function warmHost(job: (work: string) => JobSpecInput) {
  const f = await startSshd();
  fixtures.push(f);
  const t = sshCore([f]);
  closers.push(() => t.close());
  const input = (): CommandInput<'run.start'> => ({
    job: job(t.work),
    pool: { provider: 'ssh', hosts: ['h0'] },
    policy: { afterJob: 'keep_warm' },
  });
  const setupRuns = () => {
    const file = join(f.home, 'setup-runs');
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
  };
  const run = async () => {
    const view = await start(t.core, input());
    expect(view.status, view.failedReason ?? '').toBe('completed');
    return { view, lines: await agentLines(t.core, view) };
  };
  return { t, run, setupRuns };
}

describe('setup cached without setup_fingerprint, on a warm BYO host', () => {
  it('an edit to the code reruns without setup; an edit to requirements.txt builds again', async () => {
    const { t, run, setupRuns } = await warmHost((work) =>
      sshJob(work, { setup: SETUP, run: RUN }),
    );
    writeFileSync(join(t.work, 'requirements.txt'), 'numpy\n');
    writeFileSync(join(t.work, 'train.py'), 'lr = 1\n');

    const first = await run();
    expect(first.lines).toContain('True'); // the run's python is the venv's
    expect(first.lines.join('\n')).toMatch(
      /building environment [0-9a-f]{16} for `python3 -m venv \$TENDER_ENV && echo built >> \$HOME\/setup-runs` \+ requirements\.txt: /,
    );
    expect(setupRuns()).toBe(1);

    writeFileSync(join(t.work, 'train.py'), 'lr = 2\n');
    const second = await run();
    expect(second.view.nodes[0]!.claimedFrom?.runId).toBe(first.view.id);
    expect(second.lines).toContain('lr = 2');
    expect(second.lines).toContain('True');
    expect(second.lines.join('\n')).toMatch(
      /setup skipped: environment for `python3 -m venv \$TENDER_ENV && echo built >> \$HOME\/setup-runs` \+ requirements\.txt is ready \([0-9a-f]{16}\)/,
    );
    expect(setupRuns()).toBe(1);

    writeFileSync(join(t.work, 'requirements.txt'), 'numpy\ntorch\n');
    const third = await run();
    expect(third.lines.join('\n')).toMatch(/building environment [0-9a-f]{16} for /);
    expect(third.lines).toContain('True');
    expect(setupRuns()).toBe(2);
  });

  it('setup_cache = false runs setup every time, still in a $TENDER_ENV', async () => {
    const { t, run, setupRuns } = await warmHost((work) =>
      sshJob(work, { setup: SETUP, run: RUN, setup_cache: false }),
    );
    writeFileSync(join(t.work, 'train.py'), 'lr = 1\n');
    const first = await run();
    expect(first.lines).toContain('True');
    const second = await run();
    expect(second.lines).toContain('True');
    expect(second.lines.join('\n')).toMatch(/\(setup_cache = false: built every run\)/);
    expect(setupRuns()).toBe(2);
  });

  it('a setup that writes into the workspace is not cached: the next run still finds its files', async () => {
    const { t, run, setupRuns } = await warmHost((work) =>
      sshJob(work, {
        setup: 'mkdir -p data && echo rows > data/train.csv && echo built >> $HOME/setup-runs',
        run: 'cat data/train.csv',
      }),
    );
    writeFileSync(join(t.work, 'train.py'), 'lr = 1\n');
    const first = await run();
    expect(first.lines.join('\n')).toMatch(
      /environment [0-9a-f]{16} not kept: setup wrote data into the workspace/,
    );
    const second = await run(); // the clean slate removed data/: setup must run again
    expect(second.lines).toContain('rows');
    expect(setupRuns()).toBe(2);
  });
});
