// What a phase's start asks to log once it exits (a setup's environment outcome) is stored
// before the exit is announced: a client that drains the log when told of the exit has it.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodePaths } from '../../wire/paths';
import type { PhaseState } from '../../wire/protocol';
import { LogStore } from '../logs/log-store';
import { createRedactor } from '../logs/redact';
import { Supervisor } from './supervisor';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('Supervisor: onExited runs before the exit is announced', () => {
  it.each(['exit 7', 'true'])(
    '`%s`: the outcome line is in the durable log when subscribers learn of the exit',
    async (command) => {
      const dir = mkdtempSync(join(tmpdir(), 'tender-supervisor-'));
      dirs.push(dir);
      const paths = nodePaths(dir);
      for (const d of [paths.workspace, paths.pids, join(dir, 'logs'), join(dir, 'phases')])
        mkdirSync(d, { recursive: true });
      const log = await LogStore.open(paths.logFile, { onWriteError: () => {} });
      let outcomeSeq = -1;
      let durableAtExit = -1;
      let announcedAfterOutcome: boolean | null = null;
      const exited = new Promise<void>((resolve) => {
        const supervisor = new Supervisor({
          paths,
          log,
          now: Date.now,
          onPhase: (state: PhaseState) => {
            if (state.state !== 'exited') return;
            announcedAfterOutcome = outcomeSeq > 0;
            durableAtExit = log.durableSeq;
            resolve();
          },
        });
        void supervisor.start(
          'setup',
          { command, env: {}, cwd: paths.workspace, redact: createRedactor([]) },
          {
            onExited: (state) => {
              outcomeSeq = log.append('agent', 'info', `outcome: code ${state.code}`);
            },
          },
        );
      });
      await exited;
      expect(announcedAfterOutcome).toBe(true);
      expect(durableAtExit).toBeGreaterThanOrEqual(outcomeSeq);
      expect(outcomeSeq).toBeGreaterThan(0);
      await log.close();
    },
  );
});
