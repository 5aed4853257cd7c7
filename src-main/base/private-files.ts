// Everything Tender writes in the data folder is the user's alone: folders 0700, files 0600.
// The process umask (set once where a process starts: the CLI, the app) covers what a
// library creates on its own (SQLite's -wal and -shm); these helpers give the same modes
// where Tender creates a file itself, so an embedding that keeps its umask (a test, an
// editor extension) writes the same private records.
import { chmodSync, closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** A file's owner bits only: an executable output stays executable, for its owner. */
export const ownerBits = (mode: number): number => mode & 0o700;

/** The umask this process started with: files written for the user outside the data
 *  folder (a job file `tender import` writes) keep the modes the user chose. */
let userUmask: number | null = null;

/** Sets this process's umask to 077 (group and others get nothing). Where the umask
 *  cannot be set (a worker thread), the explicit modes below still hold. */
export function usePrivateUmask(): void {
  try {
    const previous = process.umask(0o077);
    userUmask ??= previous;
  } catch {
    // worker threads cannot change the process umask
  }
}

/** Writes a file of the user's own (outside the data folder) with the user's umask. */
export function writeUserFile(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data);
  if (userUmask !== null) chmodSync(path, 0o666 & ~userUmask);
}

/** `mkdir -p` whose new folders are 0700. */
export function mkdirPrivate(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** Writes a file 0600 (also when it existed with wider bits: writeFileSync keeps a mode). */
export function writePrivateFile(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data, { mode: PRIVATE_FILE_MODE });
  chmodSync(path, PRIVATE_FILE_MODE);
}

/** Creates `path` empty and 0600 unless it exists, and makes it 0600 either way: SQLite
 *  gives a database's -wal, -shm and -journal the database file's own mode. */
export function ensurePrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}
