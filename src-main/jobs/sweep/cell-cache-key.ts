// Memoization's strict key (`cache = true`): everything a cell's result depends on that Tender
// can see — the command, the setup and the files it is keyed by (inside the workspace
// digest), run_setup, host setup, the params as the cell sees them, the env's plain values
// and its secrets' names, the workspace manifest digest, the image, the constraints, the
// declared outputs and Tender's version. Two cells with one key are the same computation.
import { createHash } from 'node:crypto';
import type { JobSpec } from '../../contract';
import { hostSetupScript } from '../host/host-declaration';

export interface CellKeyInput {
  job: JobSpec;
  /** The cell's own values (over the job's params). */
  values: Record<string, string>;
  workspaceDigest: string | null;
  image: string | null;
  tenderVersion: string;
}

const sorted = (o: Record<string, string>) =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function cellCacheKey(i: CellKeyInput): string {
  const { job } = i;
  const env: Record<string, string> = {};
  for (const [name, v] of Object.entries(job.env))
    env[name] = typeof v === 'string' ? `=${v}` : 'secret'; // a secret's value never keys
  const material = {
    v: 1,
    run: job.run,
    setup: job.setup ?? null,
    setupFingerprint: job.setup_fingerprint,
    runSetup: job.run_setup ?? null,
    hostSetup: job.host_setup.map(hostSetupScript),
    bootstrap: job.bootstrap_script ?? null,
    params: sorted({ ...job.params, ...i.values }),
    env: sorted(env),
    workspace: i.workspaceDigest,
    image: i.image,
    constraints: [...job.constraints].sort(),
    outputs: [...job.outputs].sort(),
    tender: i.tenderVersion,
  };
  return `ck1_${createHash('sha256').update(JSON.stringify(material)).digest('hex')}`;
}
