import { pullText, type NodePull, type NodeView } from '../../../src-main/contract';
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
 *  ended). A pull that moves pushes `deadlineAt` on; the provider's own words are beside it
 *  (PullStatus) and in the node's log. */
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

/** The provider's words for a lease that provisions, with the pull's percentage; null
 *  when it has said nothing (or the lease is past provisioning). */
export function pullLineOf(node: Pick<NodeView, 'stage' | 'pull'>): string | null {
  return node.stage === 'lease_created' && node.pull ? pullText(node.pull) : null;
}

/** The tooltip: what the rule is ("given up after 10 min without progress"). */
export function pullTitle(pull: NodePull): string {
  const rule = pull.isImagePull
    ? `The image is being pulled: Tender waits as long as it makes progress, and gives the host up after ${duration(pull.stallMs)} without any (pull_stall).`
    : 'What the provider says of the lease.';
  return `${pull.line}\n${rule}`;
}
