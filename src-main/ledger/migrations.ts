import type Database from 'better-sqlite3';

/** Versioned schema. Append a migration; never edit one that has shipped. */
export const MIGRATIONS: { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  spec_json TEXT NOT NULL,           -- secrets redacted before they get here
  source TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs(id),
  provider TEXT NOT NULL,
  count INTEGER NOT NULL,
  pool_json TEXT NOT NULL,
  keep INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,              -- pending | running | completed | failed
  detached INTEGER NOT NULL DEFAULT 0,
  driver_pid INTEGER,
  created_at INTEGER NOT NULL,
  ended_at INTEGER,
  failed_reason TEXT,
  outputs_dir TEXT NOT NULL
);

CREATE TABLE nodes (
  id TEXT PRIMARY KEY,               -- runId/logicalId
  run_id TEXT NOT NULL REFERENCES runs(id),
  logical_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  label TEXT NOT NULL UNIQUE,
  stage TEXT NOT NULL,
  ready INTEGER NOT NULL,
  stage_since INTEGER NOT NULL,
  record_json TEXT NOT NULL,         -- the whole NodeRecord (nodes/node-record.ts)
  updated_at INTEGER NOT NULL
);
CREATE INDEX nodes_run ON nodes(run_id);
CREATE INDEX nodes_stage ON nodes(stage);

-- One job attempt per node (the job runs once on each node of a run).
CREATE TABLE attempts (
  node_id TEXT PRIMARY KEY REFERENCES nodes(id),
  run_id TEXT NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,              -- pending | running | completed | failed
  phase TEXT NOT NULL,
  exit_code INTEGER,
  reason TEXT,
  updated_at INTEGER NOT NULL
);

-- The things that bill. Keyed by label: the label exists before the provider call.
CREATE TABLE leases (
  label TEXT PRIMARY KEY,
  lease_id TEXT UNIQUE,
  provider TEXT NOT NULL,
  run_id TEXT,
  node_id TEXT,
  state TEXT NOT NULL,
  destroy_handle_json TEXT,
  price_per_hour REAL,
  requested_at INTEGER NOT NULL,
  created_at INTEGER,
  destroyed_at INTEGER,
  destroy_attempts INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  reason TEXT
);
CREATE INDEX leases_state ON leases(state);

-- Append-only journal of everything that happened.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  run_id TEXT,
  node_id TEXT,
  kind TEXT NOT NULL,
  data_json TEXT NOT NULL
);
CREATE INDEX events_run ON events(run_id, seq);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'the event journal is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'the event journal is append-only'); END;

-- Last datastream sequence number stored per (run, node, channel).
CREATE TABLE log_cursors (
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  channel TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, node_id, channel)
);
`,
  },
  {
    version: 2,
    sql: `
-- SSH host keys pinned on first contact. \`scope\` is what the key belongs to: a lease
-- (\`lease:<label>\`, rented machines whose address is reused by others later) or a host
-- of the ssh provider (\`host:<name>\`).
CREATE TABLE host_keys (
  scope TEXT PRIMARY KEY,
  endpoint TEXT NOT NULL,            -- host:port, for messages
  key_type TEXT NOT NULL,
  fingerprint TEXT NOT NULL,         -- SHA256:base64, as ssh-keygen -l prints it
  pinned_at INTEGER NOT NULL
);
`,
  },
  {
    version: 3,
    sql: `
-- Money safety: each run's lease policy (max duration, idle timeout, budget, after the job,
-- unreachable grace), and per lease what its dead-man switch was last told (renewals,
-- deadlines) and what the node reported when it tore itself down.
ALTER TABLE runs ADD COLUMN policy_json TEXT;
ALTER TABLE leases ADD COLUMN deadman_json TEXT;
`,
  },
  {
    version: 4,
    sql: `
-- Warm nodes: a lease kept after its job may serve later runs. One row per run it served,
-- with when ([served_from, served_to); served_to null while it still serves that run), so
-- each run is charged its own share. \`leases.run_id\` is the run holding it now. A node
-- row that passed its lease on (stage 'released') keeps the label in its record, and its
-- \`label\` column becomes \`<label>~<run>\`: the UNIQUE column names the one holder.
CREATE TABLE lease_runs (
  label TEXT NOT NULL,
  run_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  served_from INTEGER NOT NULL,
  served_to INTEGER,
  PRIMARY KEY (label, run_id)
);
CREATE INDEX lease_runs_run ON lease_runs(run_id);
`,
  },
  {
    version: 5,
    sql: `
-- Interruptions, as the reconciler last saw them listed: null while running, else 'outbid'
-- (an interruptible lease whose bid lost: stopped, disk kept), 'stopped' or 'exited'. An
-- interruptible lease's bid ($/h for the machine, storage not included) and the lowest bid
-- that would run it, as last listed. Written by the reconciler, not by the node projection.
ALTER TABLE leases ADD COLUMN interruption TEXT;
ALTER TABLE leases ADD COLUMN bid REAL;
ALTER TABLE leases ADD COLUMN min_bid REAL;
`,
  },
  {
    version: 6,
    sql: `
-- How a lease's rate changed after it was created, as [{from, perHour}, ...] in time order
-- (contract/billing.ts): a raised bid bills the new bid from then on; a lease stopped with
-- its disk kept (outbid, stopped) bills storage only until it runs again. NULL: the price
-- at creation, all its life.
ALTER TABLE leases ADD COLUMN rates_json TEXT;
`,
  },
  {
    version: 7,
    sql: `
-- A sweep's cells (contract/sweep.ts): one job each, queued over the run's nodes. A node
-- takes the lowest queued index; a lost node's cell goes back to queued (tries counts the
-- starts). seq_from/seq_to: the cell's records in its node's agent log.
CREATE TABLE cells (
  run_id TEXT NOT NULL REFERENCES runs(id),
  cell_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  values_json TEXT NOT NULL,
  status TEXT NOT NULL,              -- queued | running | completed | failed | cancelled
  node_id TEXT,
  tries INTEGER NOT NULL DEFAULT 0,
  exit_code INTEGER,
  reason TEXT,
  started_at INTEGER,
  ended_at INTEGER,
  seq_from INTEGER,
  seq_to INTEGER,
  cache_key TEXT,
  cache_hit_json TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, cell_id)
);
CREATE INDEX cells_queue ON cells(run_id, status, idx);
CREATE INDEX cells_cache ON cells(cache_key, status);
`,
  },
  {
    version: 8,
    sql: `
-- The pinned key itself (base64 of the public key blob, as a known_hosts line holds it),
-- so that the user's own ssh can check it too (services/ssh-config). NULL: pinned before.
ALTER TABLE host_keys ADD COLUMN public_key TEXT;
`,
  },
  {
    version: 9,
    sql: `
-- Who started each run (contract/run-origin.ts): 'cli', 'app', 'mcp:<client>'. NULL: a run
-- made before origins were kept, or started without one.
ALTER TABLE runs ADD COLUMN origin TEXT;
`,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function readSchemaVersion(db: Database.Database): number {
  const hasMeta = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
    .get();
  if (!hasMeta) return 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
    { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

/** Applies every migration newer than the file's version, each in its own transaction. */
export function migrate(db: Database.Database): void {
  const current = readSchemaVersion(db);
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) " +
          'ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ).run(String(m.version));
    })();
  }
}
