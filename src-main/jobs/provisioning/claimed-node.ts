import type { HelloResult } from '../../../src-agent/wire/protocol';
import { parseConstraint, unmet, unmetText } from '../../contract/constraint';
import type { NodeRecord } from '../../ledger/node-record';

/** A warm node that does not answer within this is taken for dead (it died while idle). */
export const CLAIM_CHECK_DEADLINE_MS = 20_000;

/** Why a claimed warm node cannot serve (null: it can), from the hello its agent gave on
 *  the job's link (null: no answer in time): it must answer, its dead-man switch must not
 *  have fired, it must advertise the key this job needs, and meet its constraints. */
export function claimProblem(hello: HelloResult | null, rec: NodeRecord): string | null {
  if (!hello) return `does not answer within ${CLAIM_CHECK_DEADLINE_MS / 1000} s`;
  if (hello.teardown) return `tore itself down (${hello.teardown.reason})`;
  if (hello.hostKey !== rec.desired.hostKey)
    return `advertises ${hello.hostKey ?? 'no host key'}, this job needs ${rec.desired.hostKey}`;
  const failed = unmet((rec.desired.constraints ?? []).map(parseConstraint), hello.capabilities);
  if (failed.length > 0) return `does not meet the job's constraints: ${unmetText(failed)}`;
  return null;
}
