import { renameSync, rmSync, writeFileSync } from 'node:fs';

let counter = 0;

/** Writes `path` so that a reader sees either the old content or the new, never a mix. */
export function writeFileAtomic(path: string, data: string): void {
  const tmp = `${path}.tmp-${process.pid}-${counter++}`;
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
