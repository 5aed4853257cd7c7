// While a lease provisions, the provider's own words for what it does reach the node's log,
// once per change (the run view shows them beside the time the wait has taken).
import { afterEach, describe, expect, it } from 'vitest';
import type { NodeEndpoint } from '../providers/provider';
import { endpoint, lease } from './node-fixtures';
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
});
