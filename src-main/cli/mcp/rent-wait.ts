// A session judges its next run once the run before it has rented its nodes. The price cap
// of a run without max_price is the price of an offer the run would take now; a later run
// judged while an earlier one is still renting gets a cap past the earlier one's offers —
// and its create, if it lands first, takes the cheaper offer the earlier run's cap was set
// at, which then fails with nothing under its cap (seen as a kill -9 e2e test that waited
// for ever on a run that had failed). Waiting for the rent makes "the offers left now" true
// when the next run is judged.
import { unwrap } from '../../api/dispatch';
import type { TenderClient } from '../../contract';
import { runStanding, type StartedRun } from './session-standing';

/** Long enough for a marketplace's search and create (with its retries after a 429); past
 *  it, the next run is judged with the earlier run's nodes counted as taking the cheapest
 *  offers (`takenBySession`). Short of an MCP client's usual 60 s request timeout. */
export const RENT_WAIT_MS = 20_000;

/** Resolves once the run has no node still to rent (each holds a created lease, or the run
 *  or node ended), or after `ms`. Never rejects: a read that fails ends the wait. */
export function untilRented(
  client: TenderClient,
  started: StartedRun,
  ms = RENT_WAIT_MS,
): Promise<void> {
  return new Promise((resolve) => {
    let isDone = false;
    let isChecking = false;
    let isStale = false;
    const finish = () => {
      if (isDone) return;
      isDone = true;
      clearTimeout(timer);
      offLease();
      offRun();
      resolve();
    };
    const check = async (): Promise<void> => {
      if (isChecking) {
        isStale = true; // looked at again once the read in flight is back
        return;
      }
      isChecking = true;
      try {
        do {
          isStale = false;
          if ((await awaitingLease(client, started)) === 0) finish();
        } while (isStale && !isDone);
      } catch {
        finish();
      } finally {
        isChecking = false;
      }
    };
    const timer = setTimeout(finish, ms);
    timer.unref();
    // Subscribed before the first look: a lease created in between still wakes it.
    const offLease = client.on('lease.changed', (l) => {
      if (l.runId === started.runId) void check();
    });
    const offRun = client.on('run.changed', (r) => {
      if (r.id === started.runId) void check();
    });
    void check();
  });
}

async function awaitingLease(client: TenderClient, started: StartedRun): Promise<number> {
  const view = unwrap(await client.invoke('run.get', { runId: started.runId }));
  const leases = unwrap(await client.invoke('lease.list', {}));
  return runStanding(started, view, leases).commitment.nodesAwaitingLease;
}
