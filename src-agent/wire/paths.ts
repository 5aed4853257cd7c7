// The node folder layout of docs/agent-protocol.md. The app computes the socket path with
// the same function, so keep it free of side effects.
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Phase } from './protocol';

/** sun_path is 108 bytes on Linux and 104 on macOS; stay clear of both. */
const MAX_SOCKET_PATH_BYTES = 100;

export interface NodePaths {
  dir: string;
  agentJson: string;
  lock: string;
  agentLog: string;
  pids: string;
  logs: string;
  logFile: string;
  phases: string;
  jobJson: string;
  teardownJson: string;
  workspace: string;
  output: string;
  /** `TENDER_METRICS`: the job's metrics, one JSON object a line, tailed into the log
   *  (src `metrics`); a new job starts with none (clean-slate.ts). */
  metrics: string;
  socket: string;
  /** Which persistent environment this job's setup chose (setup-env.ts), for its run. */
  envJson: string;
  /** Persistent environments: in the node's cache folder, which the app lays out beside
   *  the folder holding D (`~/.tender/nodes/D` → `~/.tender/cache`; a local node's
   *  `local/leases/D` → `local/cache`), so they outlive the lease. */
  envs: string;
  /** `TENDER_CACHE`: the node-wide cache (models, pip wheels), beside `envs`, so it
   *  outlives the lease and is shared by every job on the machine. */
  cache: string;
  /** The host-setup FIFO: one `<id>.json` per entry (host-setup-store.ts). */
  hostSetup: string;
  /** The host declaration the daemon was launched with (host-key.ts): its key, its host
   *  setup. Kept so a restarted daemon advertises the same key. */
  hostJson: string;
}

/** `dir` is resolved to an absolute path first, so every caller hashes the same string. */
export function nodePaths(dir: string): NodePaths {
  const d = resolve(dir);
  return {
    dir: d,
    agentJson: join(d, 'agent.json'),
    lock: join(d, 'agent.lock'),
    agentLog: join(d, 'agent.log'),
    pids: join(d, 'pids'),
    logs: join(d, 'logs'),
    logFile: join(d, 'logs', 'log.jsonl'),
    phases: join(d, 'phases'),
    jobJson: join(d, 'job.json'),
    teardownJson: join(d, 'teardown.json'),
    workspace: join(d, 'workspace'),
    output: join(d, 'output'),
    metrics: join(d, 'metrics.jsonl'),
    socket: socketPath(d),
    envJson: join(d, 'env.json'),
    envs: join(d, '..', '..', 'cache', 'envs'),
    cache: join(d, '..', '..', 'cache', 'shared'),
    hostSetup: join(d, 'host-setup'),
    hostJson: join(d, 'host.json'),
  };
}

export function phaseFile(paths: NodePaths, phase: Phase): string {
  return join(paths.phases, `${phase}.json`);
}

/** `D/agent.sock`, or `<tmpdir>/tender-agent-<16 hex of sha256(D)>.sock` when that is too long. */
export function socketPath(dir: string, tmp: string = tmpdir()): string {
  const d = resolve(dir);
  const inside = join(d, 'agent.sock');
  if (Buffer.byteLength(inside) < MAX_SOCKET_PATH_BYTES) return inside;
  const hash = createHash('sha256').update(d).digest('hex').slice(0, 16);
  return join(tmp, `tender-agent-${hash}.sock`);
}
