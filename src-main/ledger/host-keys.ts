import type Database from 'better-sqlite3';
import { appendEvent } from './journal';
import type { HostKeyPin } from './rows';

interface RawHostKey {
  scope: string;
  endpoint: string;
  key_type: string;
  fingerprint: string;
  pinned_at: number;
  public_key: string | null;
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
      publicKey: row.public_key,
    }
  );
}

/** Inserts the pin unless the scope has one, journaling only an insert, in one transaction;
 *  returns the pin in force. A pin made before keys were kept gets the key blob when the
 *  same key (same fingerprint) is offered again; a pin is never replaced. */
export function pinHostKey(db: Database.Database, pin: HostKeyPin): HostKeyPin {
  db.transaction(() => {
    const inserted = db
      .prepare(
        `INSERT OR IGNORE INTO host_keys (scope, endpoint, key_type, fingerprint, pinned_at, public_key)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        pin.scope,
        pin.endpoint,
        pin.keyType,
        pin.fingerprint,
        pin.pinnedAt,
        pin.publicKey ?? null,
      );
    if (inserted.changes === 0 && pin.publicKey)
      db.prepare(
        `UPDATE host_keys SET public_key = ?
         WHERE scope = ? AND fingerprint = ? AND public_key IS NULL`,
      ).run(pin.publicKey, pin.scope, pin.fingerprint);
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
