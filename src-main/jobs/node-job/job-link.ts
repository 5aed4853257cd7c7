import type { AgentLink } from '../../nodes/agent-link';

/** What a node's job uses of its agent link (agent-link.ts): requests, bulk shells beside
 *  the control channel, the hello a claim check waits for, and closing it. */
export type JobLink = Pick<
  AgentLink,
  'request' | 'bulkShell' | 'withBulkShell' | 'helloWithin' | 'close'
>;
