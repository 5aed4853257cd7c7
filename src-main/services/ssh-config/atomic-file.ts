import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Writes `path` so that no reader ever sees half a file: a temporary file beside it,
 *  flushed, then renamed over it (rename is atomic within a folder). */
export function writeFileAtomic(path: string, text: string, mode: number): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  try {
    chmodSync(tmp, mode); // the umask may have narrowed or (for a user file) kept bits
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
