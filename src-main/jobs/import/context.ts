import path from 'node:path';

/** What a conversion reads besides the YAML text; nothing else, so it is pure. */
export interface ImportContext {
  /** How messages name the input. */
  file: string;
  /** The YAML's folder (dstack resolves local paths against it). */
  yamlDir: string;
  /** The current folder (SkyPilot resolves `workdir` and local mounts against it, as `sky`
   *  does). */
  cwd: string;
  home: string;
  /** The folder of the job file written: the workspace is written relative to it. */
  outDir: string;
  /** `--env K=V`: plain variables. */
  env: Record<string, string>;
}

/** A job name from the file's name: `train.dstack.yml` → `train`. */
export function nameFromFile(file: string): string {
  return path.basename(file).replace(/(\.dstack)?\.ya?ml$/i, '') || 'imported';
}

/** The workspace as the job file writes it: relative to the job file when inside its
 *  folder, else absolute. */
export function workdirText(abs: string, outDir: string): string {
  const rel = path.relative(outDir, abs);
  if (rel === '') return '.';
  return rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel;
}
