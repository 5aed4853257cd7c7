import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Problem } from './job-file-problem';

/** Resolves the workdir against the job file's folder and checks it is a folder now. */
export function resolveWorkdir(
  workdir: string,
  baseDir: string,
): { workdir: string; problem?: Problem } {
  const abs = path.resolve(baseDir, workdir);
  const at = ['job', 'workspace', 'workdir'];
  let isDirectory: boolean;
  try {
    isDirectory = statSync(abs).isDirectory();
  } catch {
    const hint = `a relative workdir is resolved against the job file's folder, ${baseDir}`;
    return { workdir: abs, problem: { path: at, text: `workdir does not exist: ${abs}`, hint } };
  }
  if (!isDirectory)
    return { workdir: abs, problem: { path: at, text: `workdir is not a folder: ${abs}` } };
  return { workdir: abs };
}

const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:)?[\\/]/;

/**
 * Outputs are collected from the node's workspace, so each must stay inside it. Entries are
 * returned normalised (`./out/a.json` → `out/a.json`); a trailing `/` (a folder) is kept.
 */
export function checkOutputs(outputs: readonly string[]): {
  outputs: string[];
  problems: Problem[];
} {
  const problems: Problem[] = [];
  const normalised = outputs.map((entry, i) => {
    const at = ['job', 'outputs', i];
    if (path.posix.isAbsolute(entry) || WINDOWS_ABSOLUTE.test(entry)) {
      problems.push({
        path: at,
        text: `outputs entry "${entry}" is absolute; write it relative to the workspace`,
      });
      return entry;
    }
    const clean = path.posix.normalize(entry);
    if (clean === '..' || clean.startsWith('../')) {
      problems.push({ path: at, text: `outputs entry "${entry}" points outside the workspace` });
    }
    return clean;
  });
  return { outputs: normalised, problems };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** `setup_fingerprint` names files that setup depends on: it needs a setup whose
 *  environment is cached, and each file must be inside the workspace and exist there now
 *  (the node hashes the pushed copy). */
export function checkSetupFingerprint(
  files: readonly string[],
  setup: string | undefined,
  workdir: string,
  isSetupCached = true,
): Problem[] {
  if (files.length === 0) return [];
  if (!isSetupCached) {
    return [
      {
        path: ['job', 'setup_cache'],
        text: 'setup_fingerprint names the files that key a cached setup, but setup_cache = false runs setup every time',
        hint: 'leave setup_cache out to cache setup on those files, or leave setup_fingerprint out',
      },
    ];
  }
  if (setup === undefined) {
    return [
      {
        path: ['job', 'setup_fingerprint'],
        text: 'setup_fingerprint names the files setup depends on, but the job has no setup',
        hint: 'add setup = "…" to [job], or leave setup_fingerprint out',
      },
    ];
  }
  const problems: Problem[] = [];
  files.forEach((entry, i) => {
    const at = ['job', 'setup_fingerprint', i];
    const clean = path.posix.normalize(entry);
    const isOutside = clean === '..' || clean.startsWith('../');
    if (path.posix.isAbsolute(entry) || WINDOWS_ABSOLUTE.test(entry) || isOutside) {
      problems.push({
        path: at,
        text: `setup_fingerprint entry "${entry}" is not inside the workspace`,
        hint: 'write it relative to the workspace folder, e.g. "requirements.txt"',
      });
    } else if (!isFile(path.join(workdir, clean))) {
      problems.push({
        path: at,
        text: existsSync(path.join(workdir, clean))
          ? `setup_fingerprint entry "${entry}" is a folder: name the files in it that setup reads`
          : `setup_fingerprint file "${entry}" does not exist in the workspace ${workdir}`,
        hint: 'name a file the setup reads (e.g. requirements.txt), relative to the workspace',
      });
    }
  });
  return problems;
}

/** `checkpoints` is a folder of the workspace: relative, inside it. */
export function checkCheckpoints(entry: string | undefined): Problem[] {
  if (entry === undefined) return [];
  const at = ['job', 'checkpoints'];
  const hint = 'write a folder of the workspace, e.g. checkpoints = "ckpt/"';
  if (path.posix.isAbsolute(entry) || WINDOWS_ABSOLUTE.test(entry))
    return [{ path: at, text: `checkpoints "${entry}" is absolute`, hint }];
  const clean = path.posix.normalize(entry);
  if (clean === '..' || clean.startsWith('../') || clean === '.' || clean === './')
    return [
      { path: at, text: `checkpoints "${entry}" is not a folder inside the workspace`, hint },
    ];
  return [];
}
