import type { SetupEnvRequest } from '../../../src-agent/wire/protocol';
import type { JobSpec } from '../../contract';

// Every job with a setup gets a persistent environment on its node ($TENDER_ENV): cached by
// default, keyed on the setup command, the image and either the job's `setup_fingerprint`
// or, without one, the usual dependency files the agent finds in the workspace
// (src-agent/daemon/environment/setup-key.ts). `setup_cache = false` builds it every run.

export interface SetupEnvOptions {
  /** Rebuild even when ready (`--fresh-setup`). */
  freshSetup?: boolean;
  /** The node's image, when its provider has one (the node record's desired shape). */
  image?: string;
  /** A sweep's cell on a node whose setup already ran for the run: the environment that
   *  setup built is taken as it is, also with `setup_cache = false`. */
  isCell?: boolean;
}

/** The `configure.setupEnv` of a job; undefined when it has no setup. */
export function setupEnvRequest(
  job: Pick<JobSpec, 'setup' | 'setup_fingerprint' | 'setup_cache'>,
  opts: SetupEnvOptions = {},
): SetupEnvRequest | undefined {
  if (job.setup === undefined) return undefined;
  const isUncached = job.setup_cache === false;
  return {
    fingerprint: job.setup_fingerprint.length > 0 ? job.setup_fingerprint : 'auto',
    fresh: !opts.isCell && (opts.freshSetup === true || isUncached),
    ...(isUncached ? { uncached: true } : {}),
    ...(opts.image ? { image: opts.image } : {}),
  };
}

/** The image in a node's desired shape (a marketplace node's container), if any. */
export function shapeImage(shape: Record<string, unknown>): string | undefined {
  return typeof shape.image === 'string' && shape.image !== '' ? shape.image : undefined;
}
