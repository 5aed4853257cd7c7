import { statSync } from 'node:fs';
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
