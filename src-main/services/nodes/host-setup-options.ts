import type { HostSetupOption } from '../../../src-agent/wire/host-declaration';
import { hostSetupScript } from '../../jobs/host/host-declaration';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';

/** What the agent is told of the job's host_setup beyond the scripts the key carries
 *  (names, refresh_capabilities, the names of their secrets); undefined when no entry says
 *  more than its script. */
export function hostSetupOptionsFor(
  ledger: Pick<Ledger, 'getRun' | 'jobSpec'>,
  rec: NodeRecord,
): HostSetupOption[] | undefined {
  const run = ledger.getRun(rec.runId);
  if (!run) return undefined;
  const entries = ledger.jobSpec(run.jobId).host_setup;
  if (entries.every((e) => typeof e === 'string')) return undefined;
  return entries.map((e) =>
    typeof e === 'string'
      ? { script: e }
      : {
          script: hostSetupScript(e),
          ...(e.name ? { name: e.name } : {}),
          ...(e.refresh_capabilities ? { refreshCapabilities: true } : {}),
          ...(e.secrets?.length ? { secrets: e.secrets } : {}), // names only
        },
  );
}
