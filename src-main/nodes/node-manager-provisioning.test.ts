// While a lease provisions, the provider's own words for what it does reach the node's log,
// once per change (the run view shows them beside the time the wait has taken).
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeEndpoint } from '../providers/provider';
import type { NodePull } from '../contract';
import { bareRecordIn, endpoint, lease, T0 } from './node-fixtures';
import { baseTiming, cleanUpRigs, rig, upAndRunning } from './node-manager.test-util';

afterEach(cleanUpRigs);

describe('NodeManager: a lease that provisions', () => {
  it('logs the provider’s status line each time it changes, then goes on', async () => {
    const said = [
      'loading',
      'loading',
      'loading: pulling image nvidia/cuda',
      'loading: pulling image nvidia/cuda',
    ];
    const r = rig({
      arrange: (r) => {
        r.provider.create = (req) =>
          Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
        r.provider.endpointOf = (report): Promise<NodeEndpoint | null> => {
          const next = said.shift();
          if (next === undefined) return Promise.resolve(endpoint);
          report?.(next);
          return Promise.resolve(null);
        };
        return { timing: { ...baseTiming, endpointPollMs: 1 } };
      },
    });
    const rec = await upAndRunning(r);
    expect(rec.stage).not.toBe('failed');
    expect(r.logs.filter((l) => l.startsWith('info: local:'))).toEqual([
      'info: local: loading',
      'info: local: loading: pulling image nvidia/cuda',
    ]);
  });

  it('waits for a slow image pull that keeps moving, past the endpoint deadline', async () => {
    // One look a minute; 15 GB at 0.6 GB a minute is 25 minutes, the deadline is 15.
    const p = pullRig((look) =>
      look < 26 ? `loading: Downloading ${(look * 0.6).toFixed(1)}GB/15GB` : UP,
    );
    const rec = await upAndRunning(p.r);
    expect(rec.stage, rec.failedReason ?? '').toBe('dormant');
    expect(p.looks()).toBe(27);
    // The view's pull moved its deadline on with every move.
    const mid = p.pulls[20]!;
    expect(mid).toMatchObject({ isImagePull: true, totalBytes: 15e9, percent: 80 });
    expect(mid.givesUpAt).toBe(mid.lastProgressAt! + 10 * MIN);
    expect(p.r.manager.pull).toBeNull(); // no longer provisioning
  });

  it('gives up on a pull that stalls, naming it, once it made no progress for its window', async () => {
    // It moves for 20 minutes, then says the same forever.
    const p = pullRig(
      (look) => `loading: Downloading ${(Math.min(look, 20) * 0.6).toFixed(1)}GB/15GB`,
    );
    const rec = await upAndRunning(p.r);
    expect(rec.stage).toBe('failed');
    expect(rec.failedReason).toBe(
      'endpoint: its image pull stalled: no progress for 10 min (last said: "loading: Downloading 12.0GB/15GB")',
    );
    expect(p.looks()).toBe(31); // its last move was seen at minute 21
  });

  it('takes the pool’s pull_stall: a pull that never moves is waited for that long', async () => {
    const p = pullRig(() => 'loading', 30 * MIN);
    const rec = await upAndRunning(p.r);
    expect(rec.failedReason).toBe(
      'endpoint: its image pull showed no progress in 30 min (last said: "loading")',
    );
  });

  it('a lease that says nothing of a pull is given up at the endpoint deadline, as before', async () => {
    const p = pullRig(() => null);
    const rec = await upAndRunning(p.r);
    expect(rec.failedReason).toBe('endpoint: no SSH endpoint within 15 min');
    expect(p.looks()).toBe(15);
  });
});

const MIN = 60_000;

const UP = Symbol('the endpoint is there');

/** A provider whose lease says `said(look)` of its image pull at each look (null: nothing;
 *  UP: its endpoint is there), a minute of the manager's clock apart; the endpoint deadline
 *  is 15 min. */
function pullRig(said: (look: number) => string | null | typeof UP, pullStallMs?: number) {
  let t = T0;
  let look = 0;
  const pulls: NodePull[] = [];
  const record = bareRecordIn('new');
  if (pullStallMs !== undefined) record.desired = { ...record.desired, pullStallMs };
  const r = rig({
    record,
    arrange: (r) => {
      r.provider.create = (req) =>
        Promise.resolve({ lease: { ...lease, label: req.label }, endpoint: null });
      r.provider.endpointOf = (report): Promise<NodeEndpoint | null> => {
        const line = said(look);
        look += 1;
        t += MIN;
        if (line === UP) return Promise.resolve(endpoint);
        if (line !== null) report?.(line, true);
        return Promise.resolve(null);
      };
      return {
        now: () => t,
        onPull: (_rec, pull) => void pulls.push(pull),
        timing: { ...baseTiming, endpointPollMs: 1, endpointDeadlineMs: 15 * MIN },
      };
    },
  });
  return { r, pulls, looks: () => look };
}
