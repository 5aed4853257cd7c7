// One conformance suite for every provider (providers say what they promise, and this checks it):
// the promises of src-main/providers/provider.ts, checked against a real instance. A
// provider's tests call `providerConformance` once, then add what is specific to it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CreateLeaseRequest, Provider } from '../../src-main/providers/provider';

export interface ProviderUnderTest {
  provider: Provider;
  /** Another instance over the same account: Tender restarted and its ledger is gone. */
  reopen(): Provider;
  /** A valid desired shape for this provider (`{}` for local). */
  shape: Record<string, unknown>;
  /** Ends whatever the fixture started (temp folders, fake servers, leftover leases). */
  dispose(): Promise<void>;
}

/** Two installs' label prefixes: a provider must never confuse one with the other. */
const MINE = 'tender-conf0a-';
const THEIRS = 'tender-conf0b-';

function request(prefix: string, node: string, shape: Record<string, unknown>): CreateLeaseRequest {
  return { label: `${prefix}run1-${node}`, runId: 'r-run1', logicalId: node, shape };
}

/** Registers the suite. `makeProvider` must give a fresh, empty account on every call. */
export function providerConformance(
  name: string,
  makeProvider: () => Promise<ProviderUnderTest>,
): void {
  describe(`${name} provider conformance`, () => {
    let put: ProviderUnderTest;
    let signal: AbortSignal;

    beforeEach(async () => {
      put = await makeProvider();
      signal = new AbortController().signal;
    });

    afterEach(async () => {
      await put.dispose();
    });

    it('creates a lease carrying its label, with a handle that names it', async () => {
      const req = request(MINE, 'node-0', put.shape);

      const { lease } = await put.provider.createLease(req, signal);

      expect(lease.label).toBe(req.label);
      expect(lease.provider).toBe(put.provider.kind);
      expect(lease.leaseId).toBe(`${put.provider.kind}:${lease.contractId}`);
      expect(lease.destroyHandle).toMatchObject({
        provider: put.provider.kind,
        leaseId: lease.leaseId,
      });
      expect(await put.provider.isGone(lease.destroyHandle, signal)).toBe(false);
    });

    it('is idempotent for the same label: one lease, the same id', async () => {
      const req = request(MINE, 'node-0', put.shape);

      const first = await put.provider.createLease(req, signal);
      const again = await put.provider.createLease(req, signal);

      expect(again.lease.leaseId).toBe(first.lease.leaseId);
      const listed = await put.provider.listLabeled(MINE, signal);
      expect(listed.map((l) => l.leaseId)).toEqual([first.lease.leaseId]);
    });

    it('lists by label prefix, only that prefix, from a new instance too', async () => {
      const mine0 = await put.provider.createLease(request(MINE, 'node-0', put.shape), signal);
      const mine1 = await put.provider.createLease(request(MINE, 'node-1', put.shape), signal);
      const theirs = await put.provider.createLease(request(THEIRS, 'node-0', put.shape), signal);

      const restarted = put.reopen();
      const listed = await restarted.listLabeled(MINE, signal);

      expect(listed.map((l) => l.label).sort()).toEqual([mine0.lease.label, mine1.lease.label]);
      expect(listed.map((l) => l.leaseId).sort()).toEqual(
        [mine0.lease.leaseId, mine1.lease.leaseId].sort(),
      );
      expect((await restarted.listLabeled(THEIRS, signal)).map((l) => l.leaseId)).toEqual([
        theirs.lease.leaseId,
      ]);
      expect(await restarted.listLabeled('tender-nobody-', signal)).toEqual([]);
    });

    it('looks up the endpoint of a live lease', async () => {
      const created = await put.provider.createLease(request(MINE, 'node-0', put.shape), signal);

      const endpoint = await put.provider.lookupEndpoint(created.lease, signal);

      // A provider that knew the endpoint at once must still answer it on a lookup; one
      // that did not may answer null (not yet) but must not throw for a live lease.
      if (created.endpoint) expect(endpoint).toEqual(created.endpoint);
      else if (endpoint) expect(['local', 'ssh']).toContain(endpoint.kind);
    });

    it('destroys with the stored handle alone, then reports the lease gone and unlisted', async () => {
      const { lease } = await put.provider.createLease(request(MINE, 'node-0', put.shape), signal);
      const stored = JSON.parse(JSON.stringify(lease.destroyHandle)) as typeof lease.destroyHandle;
      const restarted = put.reopen();

      await restarted.destroyLease(stored, signal);

      expect(await restarted.isGone(stored, signal)).toBe(true);
      expect(await put.provider.isGone(lease.destroyHandle, signal)).toBe(true);
      expect(await restarted.listLabeled(MINE, signal)).toEqual([]);
    });

    it('treats destroying a lease that is already gone as success', async () => {
      const { lease } = await put.provider.createLease(request(MINE, 'node-0', put.shape), signal);
      await put.provider.destroyLease(lease.destroyHandle, signal);

      await expect(put.provider.destroyLease(lease.destroyHandle, signal)).resolves.toBeUndefined();

      expect(await put.provider.isGone(lease.destroyHandle, signal)).toBe(true);
    });

    it('lists a new lease, where it says what the lease does, as loading or running', async () => {
      const { lease } = await put.provider.createLease(request(MINE, 'node-0', put.shape), signal);

      const [listed] = await put.provider.listLabeled(MINE, signal);

      expect(listed?.leaseId).toBe(lease.leaseId);
      // Never outbid, stopped or exited: the reconciler would mark a healthy lease interrupted.
      if (listed?.condition) expect(['loading', 'running']).toContain(listed.condition.state);
    });

    it('refuses, where bids are taken, to change the bid of a lease not rented by bidding', async () => {
      const { lease } = await put.provider.createLease(request(MINE, 'node-0', put.shape), signal);
      if (!put.provider.changeBid) return; // the provider rents nothing by bidding

      await expect(put.provider.changeBid(lease, 0.2, signal)).rejects.toMatchObject({
        code: 'bad_input',
      });
    });

    it('leaves other leases alone when destroying one', async () => {
      const gone = await put.provider.createLease(request(MINE, 'node-0', put.shape), signal);
      const kept = await put.provider.createLease(request(MINE, 'node-1', put.shape), signal);

      await put.provider.destroyLease(gone.lease.destroyHandle, signal);

      expect(await put.provider.isGone(kept.lease.destroyHandle, signal)).toBe(false);
      expect((await put.provider.listLabeled(MINE, signal)).map((l) => l.leaseId)).toEqual([
        kept.lease.leaseId,
      ]);
    });
  });
}
