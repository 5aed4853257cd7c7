// VastProvider.searchOffers against the MiniVast fake: cheapest first, with the hosts that
// failed to boot hidden unless asked for, and remembered in the failed-hosts file.
import { describe, expect, test } from 'vitest';
import type { LeaseFacts } from '../provider';
import { failedHostsPath, readFailedHosts } from './failed-hosts';
import { clock, home, LABEL, provider, signal, useMiniVast, vast } from './provider.test-util';

useMiniVast();

describe('searchOffers and failed hosts', () => {
  test('cheapest first, failed hosts hidden unless asked', async () => {
    vast.addOffer({ dph_base: 0.2, machine_id: 1 });
    vast.addOffer({ dph_base: 0.1, machine_id: 2 });
    const p = provider();
    p.rememberBootFailure({ ...lease2(), metadata: { machine_id: '2' } }, 'no SSH within 10 min');

    const hidden = await p.searchOffers({}, signal());
    const all = await p.searchOffers({ includeFailedHosts: true }, signal());

    expect(hidden.map((o) => o.machineId)).toEqual(['1']);
    expect(all.map((o) => o.machineId)).toEqual(['2', '1']);
    expect(readFailedHosts(failedHostsPath(home))).toEqual([
      { machineId: '2', at: clock.now(), reason: 'no SSH within 10 min' },
    ]);
  });

  function lease2(): LeaseFacts {
    return {
      provider: 'vastai',
      leaseId: 'vastai:9',
      contractId: '9',
      label: LABEL,
      destroyHandle: { provider: 'vastai', leaseId: 'vastai:9', instanceId: '9' },
      pricePerHour: null,
      metadata: {},
    };
  }
});
