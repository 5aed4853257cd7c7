import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { ensurePrivateFile, writePrivateFile } from '../base/private-files';
import { join } from 'node:path';
import { TenderError } from '../base/tender-error';

/** One writer per data folder. The lock is an exclusive SQLite lock on `tender.lock`, held
 *  for the life of the process: the kernel drops it when the process dies, however it dies,
 *  so there is no stale lock to clean up after a crash. `tender.pid` only names the holder. */
export class ProcessLock {
  private constructor(
    private readonly db: Database.Database,
    private readonly pidFile: string,
  ) {}

  static acquire(home: string): ProcessLock {
    const file = join(home, 'tender.lock');
    ensurePrivateFile(file);
    const db = new Database(file, { timeout: 0 });
    try {
      db.pragma('journal_mode = DELETE');
      // Nothing here needs to outlive the process (the lock is the point, the row is not):
      // no fsync, which cost ~12 ms of every command's start.
      db.pragma('synchronous = OFF');
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
      // A write in exclusive locking mode keeps the lock after commit, until close.
      db.exec('BEGIN IMMEDIATE; DELETE FROM holder; INSERT INTO holder VALUES (0); COMMIT');
    } catch (err) {
      db.close();
      if (isBusy(err)) throw busyError(home);
      throw err;
    }
    const pidFile = join(home, 'tender.pid');
    writePrivateFile(pidFile, `${process.pid}\n`);
    return new ProcessLock(db, pidFile);
  }

  release(): void {
    if (!this.db.open) return;
    try {
      if (readFileSync(this.pidFile, 'utf8').trim() === String(process.pid)) {
        writePrivateFile(this.pidFile, '');
      }
    } catch {
      // the pid file is only informational
    }
    this.db.close();
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

function busyError(home: string): TenderError {
  let pid = '';
  try {
    pid = readFileSync(join(home, 'tender.pid'), 'utf8').trim();
  } catch {
    // unknown holder
  }
  const who = !pid
    ? 'another process'
    : pid === String(process.pid)
      ? 'another Tender in this process'
      : `pid ${pid}`;
  return new TenderError(
    'busy',
    `Tender is already running on ${home} (${who})`,
    'Use that window or process, stop it first, or point TENDER_HOME at another folder. ' +
      '`tender status` and `tender logs` work alongside it read-only.',
  );
}
