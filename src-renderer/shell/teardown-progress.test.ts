import { describe, expect, it } from 'vitest';
import type { DestroyAllReport } from '../../src-main/contract';
import { lease, status } from '../views/ledger/fixtures.test-util';
import { countStates, shortLeaseId, teardownProgress, teardownTargets } from './teardown-progress';

const a = lease({ label: 'tender-i-r-node-0', leaseId: 'vastai:1', pricePerHour: 0.4 });
const b = lease({ label: 'tender-i-r-node-1', leaseId: 'vastai:2', nodeId: 'r-aaaaaa/node-1' });
const gone = lease({ label: 'tender-i-old-node-0', state: 'destroyed' });
const orphan = { provider: 'vastai', leaseId: 'vastai:9', label: 'tender-i-x-node-0' };

describe('tear down all: what it destroys', () => {
  it('is every live lease and every orphan, never a destroyed lease', () => {
    const targets = teardownTargets(status({ leases: [a, gone, b], orphans: [orphan] }));
    expect(targets.map((t) => [t.kind, t.label])).toEqual([
      ['lease', a.label],
      ['lease', b.label],
      ['orphan', orphan.label],
    ]);
    expect(targets[0]!.pricePerHour).toBe(0.4);
    expect(targets[2]!.pricePerHour).toBeNull();
  });
});

describe('tear down all: progress', () => {
  const targets = teardownTargets(status({ leases: [a, b], orphans: [orphan] }));

  it('follows lease.changed: destroying until the ledger records each one gone', () => {
    const rows = teardownProgress(
      targets,
      [
        { ...a, state: 'destroyed' },
        { ...b, state: 'destroying' },
      ],
      null,
    );
    expect(rows.map((r) => r.state)).toEqual(['gone', 'destroying', 'destroying']);
    expect(countStates(rows)).toEqual({ destroying: 2, gone: 1, failed: 0 });
  });

  it('shows a failed attempt while Tender still retries, without calling it failed', () => {
    const rows = teardownProgress(
      targets,
      [{ ...b, state: 'destroying', lastError: 'HTTP 500' }],
      null,
    );
    expect(rows[1]).toMatchObject({ state: 'destroying', error: 'HTTP 500' });
  });

  it('takes the final word from the report, and adds outcomes it did not expect', () => {
    const report: DestroyAllReport = {
      allConfirmed: false,
      outcomes: [
        { label: a.label, leaseId: 'vastai:1', provider: 'vastai', confirmed: true, error: null },
        {
          label: b.label,
          leaseId: 'vastai:2',
          provider: 'vastai',
          confirmed: false,
          error: 'HTTP 500',
        },
        {
          label: orphan.label,
          leaseId: orphan.leaseId,
          provider: 'vastai',
          confirmed: true,
          error: null,
        },
        {
          label: '(every orphan of vastai)',
          leaseId: null,
          provider: 'vastai',
          confirmed: false,
          error: 'could not list leases: timeout',
        },
      ],
    };
    const rows = teardownProgress(targets, [a, b], report);
    expect(rows.map((r) => [r.label, r.state, r.error])).toEqual([
      [a.label, 'gone', null],
      [b.label, 'failed', 'HTTP 500'],
      [orphan.label, 'gone', null],
      ['(every orphan of vastai)', 'failed', 'could not list leases: timeout'],
    ]);
  });

  it('fails what is not gone when the call itself failed', () => {
    const rows = teardownProgress(targets, [{ ...a, state: 'destroyed' }], null, 'busy');
    expect(rows.map((r) => r.state)).toEqual(['gone', 'failed', 'failed']);
    expect(rows[1]!.error).toBe('busy');
  });

  it('shortens lease ids by their provider', () => {
    expect(shortLeaseId('vastai:123', 'vastai')).toBe('123');
    expect(shortLeaseId('other:1', 'vastai')).toBe('other:1');
    expect(shortLeaseId(null, 'vastai')).toBe('not created yet');
  });
});
