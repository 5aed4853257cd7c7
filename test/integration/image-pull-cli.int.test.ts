// `tender run` (the CLI command itself, in this process, so the Vast.ai fake and the core
// share one JumpClock) prints a lease's image pull as its stage line while it loads: the
// provider's words, the progress, and how long the wait has taken.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCommand } from '../../src-main/cli/commands/run';
import { startFakeVast, type FakeVast } from '../fakes/vast';
import { JumpClock } from '../helpers/jump-clock';
import { writeJob } from '../helpers/job-files';
import { defaultOffers, vastCoreOptions } from '../helpers/vast-core';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

describe('tender run: pull progress in the stage line', () => {
  it('prints the pull as it moves, with the time the wait has taken', async () => {
    const clock = new JumpClock();
    const fake: FakeVast = await startFakeVast({ offers: defaultOffers(2), clock });
    cleanups.push(() => fake.stop());
    const root = mkdtempSync(join(tmpdir(), 'tender-pull-cli-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const home = join(root, 'home');
    const file = writeJob(root, 'j', '[job]\nname = "j"\nrun = "echo pulled"\n');
    fake.faults.nextInstancePull({ sizeGb: 15, gbPerMin: 1 });

    const written: string[] = [];
    const stderr = vi
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
    cleanups.push(() => stderr.mockRestore());
    const ctx = {
      home,
      env: process.env,
      coreOptions: vastCoreOptions(
        fake,
        home,
        { clock, timing: { endpointDeadlineMs: 15 * 60_000 } },
        (vast) => clock.stepOnLookup(vast, 60_000), // a minute of the shared clock per look
      ),
    };
    const code = await runCommand([file, '--provider', 'vastai'], ctx);
    stderr.mockRestore();

    const lines = written.join('').replace(ANSI, '').split('\n');
    expect(code, lines.join('\n')).toBe(0);
    const stage = lines.filter((l) => l.startsWith('» node lease_created:'));
    // The provider's own words with the percentage, and the wait so far.
    expect(stage.length).toBeGreaterThanOrEqual(5);
    for (const l of stage.slice(1))
      expect(l).toMatch(
        /^» node lease_created: loading: .*: Downloading \[[=> ]+\] \d+\.\d\dGB\/15GB \(\d+%\) · waiting \d+m(\d+s)?$/,
      );
    const minutes = stage.map((l) => Number(/waiting (\d+)m/.exec(l)?.[1] ?? 0));
    expect(minutes).toEqual([...minutes].sort((a, b) => a - b));
    expect(minutes.at(-1)).toBeGreaterThanOrEqual(10);
    expect(lines.some((l) => l.includes('completed'))).toBe(true);
  });
});
