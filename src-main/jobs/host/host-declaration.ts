import type { HostSetupEntry, JobSpec, PoolSpec } from '../../contract';
import { BadInputError } from '../../base/bad-input-error';
import type { Problem } from '../job-file/job-file-problem';
import { hostKey, type HostKeyInput } from '../../../src-agent/wire/host-key';

/** The pool fields that say what machine a job needs: the `resources` of the host key. */
const RESOURCE_FIELDS = ['gpu', 'gpu_count', 'min_vram_gb', 'disk_gb'] as const;

/** What makes a machine fit a job, as the host key (`hk1_…`, wire/host-key.ts) takes it: the
 *  runner, the image, the resources, the host setup in order, the provider, and the bootstrap
 *  script (in `extras`). Env, `setup`, `run_setup`, params and the policy are not in it: they
 *  change per run, not what the machine is. */
export function hostDeclaration(job: JobSpec, pool: PoolSpec, provider: string): HostKeyInput {
  const resources: Record<string, number | string> = {};
  for (const field of RESOURCE_FIELDS) {
    const value = pool[field];
    if (value === undefined) continue;
    if (typeof value === 'number' && !Number.isSafeInteger(value))
      throw new BadInputError(`[pool] ${field} = ${value} is not a whole number`, {
        hint: `the host key takes whole numbers or strings: write ${field} = ${Math.ceil(value)}`,
      });
    resources[field] = value;
  }
  return {
    runner: 'tender-agent',
    image: pool.image ?? null,
    resources,
    host_setup: job.host_setup.map(hostSetupScript),
    provider,
    extras: job.bootstrap_script ? { bootstrap_script: job.bootstrap_script } : {},
  };
}

/** Job-file check: the resources of the host key as whole numbers (`min_vram_gb = 23.5`
 *  cannot key a host). */
export function checkHostResources(pool: PoolSpec): Problem[] {
  return RESOURCE_FIELDS.flatMap((field): Problem[] => {
    const value = pool[field];
    if (typeof value !== 'number' || Number.isSafeInteger(value)) return [];
    return [
      {
        path: ['pool', field],
        text: `${field} = ${value} is not a whole number`,
        hint: `the host key takes whole numbers or strings: write ${field} = ${Math.ceil(value)}`,
      },
    ];
  });
}

export function hostSetupScript(entry: HostSetupEntry): string {
  return typeof entry === 'string' ? entry : entry.script;
}

/** The fields of two declarations that differ, in the key's order, for "why not this
 *  warm node" messages. */
export function differingFields(a: HostKeyInput, b: HostKeyInput): string[] {
  const fields = ['runner', 'image', 'resources', 'host_setup', 'provider', 'extras'] as const;
  return fields.filter(
    (f) => hostKey({ [f]: a[f] } as HostKeyInput) !== hostKey({ [f]: b[f] } as HostKeyInput),
  );
}

export { hostKey, type HostKeyInput };
