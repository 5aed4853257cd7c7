import type { NodeView } from '../../../src-main/contract';
import { duration } from '../../lib/format';

const PROVISIONING = new Set<NodeView['stage']>([
  'lease_requested',
  'lease_created',
  'endpoint_known',
  'bootstrap_running',
  'agent_joined',
]);

/** While a node's lease provisions: how long the wait has taken since it was asked for, and
 *  when the stage gives up ("3 min 10 s · gives up in 6 min"); null once it is up (or
 *  ended). The provider's own status line is in the node's log beside it. */
export function provisionWaitText(
  node: Pick<NodeView, 'stage' | 'stages' | 'stageSince' | 'deadlineAt'>,
  now: number,
): string | null {
  if (!PROVISIONING.has(node.stage)) return null;
  const asked = node.stages.find((s) => s.stage === 'lease_requested')?.at ?? node.stageSince;
  const waited = `waiting ${duration(Math.max(0, now - asked))}`;
  if (node.deadlineAt === null) return waited;
  const left = node.deadlineAt - now;
  return left >= 0
    ? `${waited} · gives up in ${duration(left)}`
    : `${waited} · over its deadline by ${duration(-left)}`;
}
