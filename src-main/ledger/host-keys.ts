import type Database from 'better-sqlite3';
import { appendEvent } from './journal';
import type { HostKeyPin } from './rows';

interface RawHostKey {
  scope: string;
  endpoint: string;
  key_type: string;
  fingerprint: string;
  pinned_at: number;
}

export function getHostKey(db: Database.Database, scope: string): HostKeyPin | undefined {
  const row = db.prepare('SELECT * FROM host_keys WHERE scope = ?').get(scope) as
    RawHostKey | undefined;
  return (
    row && {
      scope: row.scope,
      endpoint: row.endpoint,
      keyType: row.key_type,
      fingerprint: row.fingerprint,
      pinnedAt: row.pinned_at,
    }
  );
}

/** Inserts the pin unless the scope has one, journaling only an insert, in one transaction;
 *  returns the pin in force. */
export function pinHostKey(db: Database.Database, pin: HostKeyPin): HostKeyPin {
  db.transaction(() => {
    const inserted = db
      .prepare(
        `INSERT OR IGNORE INTO host_keys (scope, endpoint, key_type, fingerprint, pinned_at)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(pin.scope, pin.endpoint, pin.keyType, pin.fingerprint, pin.pinnedAt);
    if (inserted.changes === 1) {
      appendEvent(db, {
        ts: pin.pinnedAt,
        runId: null,
        nodeId: null,
        kind: 'host_key.pinned',
        data: { ...pin },
      });
    }
  })();
  return getHostKey(db, pin.scope)!;
}

/** Deletes the pin and journals it, in one transaction. */
export function forgetHostKey(db: Database.Database, scope: string, now: number): void {
  db.transaction(() => {
    db.prepare('DELETE FROM host_keys WHERE scope = ?').run(scope);
    appendEvent(db, {
      ts: now,
      runId: null,
      nodeId: null,
      kind: 'host_key.forgotten',
      data: { scope },
    });
  })();
}
