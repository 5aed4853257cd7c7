// `start` of a setup that builds a persistent environment (environment/setup-env.ts):
// skipped when the environment its key names is ready, else built under the environment's
// lock and marked ready only when setup exits 0. The key covers the setup command, the
// job's `setup_fingerprint` files or else the usual dependency files (setup-key.ts), and
// the image; the log line says which.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../atomic-file';
import type { PhaseState, SetupEnvRequest } from '../../wire/protocol';
import type { DaemonContext } from '../context';
import type { PhaseLaunch } from './phase-process';
import { isProcessAlive } from './process-group';
import { RequestError } from '../socket/request-checks';
import {
  envFingerprint,
  isEnvReady,
  lockEnv,
  markEnvReady,
  pruneEnvs,
  touchEnv,
} from '../environment/setup-env';
import { defaultKeyFiles, describeKey } from '../environment/setup-key';
import { setupWorkspaceWrites, workspaceWritesNotice } from '../environment/setup-writes';

export interface StartResult {
  pid: number;
  alreadyStarted: boolean;
  cached?: boolean;
}

/** The environment folder a job's setup chose, or undefined when it has none. */
export function chosenEnvDir(ctx: DaemonContext): string | undefined {
  try {
    return (JSON.parse(readFileSync(ctx.paths.envJson, 'utf8')) as { dir?: string }).dir;
  } catch {
    return undefined;
  }
}

/** Picks the environment (remembered in D/env.json for the run phase), then skips or
 *  builds it. `launch` builds the setup's launch once the folder is known. */
export async function startSetupWithEnv(
  ctx: DaemonContext,
  req: SetupEnvRequest,
  command: string,
  launch: (envDir: string) => PhaseLaunch,
): Promise<StartResult> {
  const files =
    req.fingerprint === 'auto'
      ? defaultKeyFiles(command, ctx.paths.workspace)
      : req.uncached
        ? []
        : req.fingerprint;
  let key: string;
  try {
    key = envFingerprint(command, files, ctx.paths.workspace, req.image);
  } catch (err) {
    throw new RequestError('bad_request', (err as Error).message);
  }
  const covered = describeKey(command, files, req.image);
  const envDir = join(ctx.paths.envs, key);
  writeFileAtomic(ctx.paths.envJson, `${JSON.stringify({ dir: envDir, key })}\n`);
  const now = Date.now();
  if (!req.fresh && isEnvReady(envDir)) {
    touchEnv(envDir, now);
    ctx.log.append('agent', 'info', `setup skipped: environment for ${covered} is ready (${key})`);
    await ctx.supervisor.recordSkipped('setup', command);
    prune(ctx, key);
    return { pid: 0, alreadyStarted: false, cached: true };
  }
  const lock = lockEnv(ctx.paths.envs, key, now, isProcessAlive);
  if ('heldBy' in lock) {
    throw new RequestError(
      'env_locked',
      `environment ${key} is being built by process ${lock.heldBy} on this node: start setup again once that build is done`,
    );
  }
  try {
    rmSync(envDir, { recursive: true, force: true }); // an unready or --fresh-setup folder
    mkdirSync(envDir, { recursive: true });
    const why = req.uncached
      ? ' (setup_cache = false: built every run)'
      : req.fresh
        ? ' (fresh setup asked for)'
        : '';
    ctx.log.append('agent', 'info', `building environment ${key} for ${covered}${why}: ${envDir}`);
    // The outcome is logged before the exit is announced (a client drains the log then).
    const onExited = (state: PhaseState) => {
      const writes = req.uncached ? [] : setupWorkspaceWrites(ctx.paths);
      if (state.code === 0 && !state.cancelled && writes.length > 0) {
        ctx.log.append('agent', 'info', workspaceWritesNotice(key, writes));
      } else if (state.code === 0 && !state.cancelled) {
        markEnvReady(envDir, { command, builtAt: Date.now() });
        ctx.log.append('agent', 'info', `environment ${key} is ready`);
      } else {
        ctx.log.append(
          'agent',
          'info',
          `environment ${key} not marked ready: setup did not succeed`,
        );
      }
      lock.release();
      prune(ctx, key);
    };
    const started = await ctx.supervisor.start('setup', launch(envDir), { onExited });
    // Started before (a retried start): its outcome is told when that setup exits.
    if (started.alreadyStarted)
      void ctx.supervisor.whenExited('setup').then((state) => state && onExited(state));
    return started;
  } catch (err) {
    lock.release();
    throw err;
  }
}

function prune(ctx: DaemonContext, keep: string): void {
  try {
    const removed = pruneEnvs(ctx.paths.envs, keep, Date.now());
    if (removed.length > 0)
      ctx.log.append('agent', 'info', `pruned old environments: ${removed.join(', ')}`);
  } catch (err) {
    ctx.log.append('agent', 'info', `could not prune environments: ${(err as Error).message}`);
  }
}
