// A LeaseView for unit tests (main and renderer alike): a live Vast lease of one node, with
// what a test changes. Not part of any bundle.
import type { LeaseView } from './lease-view';

export function leaseView(over: Partial<LeaseView> = {}): LeaseView {
  return {
    label: 'tender-i-r-aaaaaa-node-0',
    leaseId: 'vastai:1',
    provider: 'vastai',
    runId: 'r-aaaaaa',
    nodeId: 'r-aaaaaa/node-0',
    state: 'created',
    pricePerHour: 1,
    createdAt: 0,
    destroyedAt: null,
    lastError: null,
    reason: null,
    accruedUsd: 0,
    deadMan: null,
    ...over,
  };
}
