// The one-writer lock on a ledger folder: refused in this process and across processes,
// freed by close, and dropped by the kernel when its holder is killed.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderError } from '../base/tender-error';
import { cleanUpLedgers, tempHome, thrown, writer } from './ledger.test-util';

const children: ChildProcessWithoutNullStreams[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  }
  cleanUpLedgers();
});

describe('one writer per folder', () => {
  it('refuses a second writer in the same process with busy, until the first closes', () => {
    const home = tempHome();
    const first = writer(home);

    const err = thrown(() => writer(home));

    expect(err).toBeInstanceOf(TenderError);
    expect((err as TenderError).code).toBe('busy');
    expect((err as TenderError).message).toContain('already running');
    first.close();
    expect(writer(home).isReadonly).toBe(false);
  });

  // The child takes the lock on tender.lock the way SQLite's exclusive locking mode does
  // (the same pragmas ProcessLock uses): what is tested is that the kernel-level lock is
  // seen across processes, and dropped when its holder dies.
  const SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');
  const takeLock = (home: string) => `
    const Database = require(${JSON.stringify(SQLITE)});
    const db = new Database(${JSON.stringify(join(home, 'tender.lock'))}, { timeout: 0 });
    try {
      db.pragma('journal_mode = DELETE');
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL)');
      db.exec('BEGIN IMMEDIATE; DELETE FROM holder; INSERT INTO holder VALUES (0); COMMIT');
    } catch (err) {
      console.log(JSON.stringify({ ok: false, code: err.code }));
      process.exit(0);
    }
    require('node:fs').writeFileSync(${JSON.stringify(join(home, 'tender.pid'))}, process.pid + '\\n');
    console.log(JSON.stringify({ ok: true }));
    if (process.argv[1] === 'hold') setInterval(() => {}, 1 << 30);
    else db.close();
  `;

  /** Starts a child that tries to take the lock; resolves with its first report. */
  function lockChild(
    home: string,
    mode: 'try' | 'hold',
  ): { child: ChildProcessWithoutNullStreams; report: Promise<{ ok: boolean; code?: string }> } {
    const child = spawn(process.execPath, ['-e', takeLock(home), mode]);
    children.push(child);
    const report = new Promise<{ ok: boolean; code?: string }>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const nl = out.indexOf('\n');
        if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as { ok: boolean; code?: string });
      });
      child.once('exit', (code) => reject(new Error(`lock child exited ${code}: ${err}`)));
    });
    return { child, report };
  }

  it('is held against another process while a writer is open, and freed by close', async () => {
    const home = tempHome();
    const ledger = writer(home);

    const whileOpen = await lockChild(home, 'try').report;
    ledger.close();
    const afterClose = await lockChild(home, 'try').report;

    expect(whileOpen.ok).toBe(false);
    expect(whileOpen.code).toMatch(/^SQLITE_BUSY/);
    expect(afterClose).toEqual({ ok: true });
  });

  it('names the other process, and is dropped by the kernel when that process is killed -9', async () => {
    const home = tempHome();
    const { child, report } = lockChild(home, 'hold');
    expect(await report).toEqual({ ok: true });

    const err = thrown(() => writer(home));
    const exited = new Promise((r) => child.once('exit', (_code, signal) => r(signal)));
    child.kill('SIGKILL');

    expect((err as TenderError).code).toBe('busy');
    expect((err as TenderError).message).toContain('already running');
    expect((err as TenderError).message).toContain(`pid ${child.pid}`);
    expect(await exited).toBe('SIGKILL');
    expect(writer(home).isReadonly).toBe(false);
  });
});
