// VastProvider.listLabeled against the MiniVast fake: by label prefix or env marker, across
// pages, never a short list, never an over-broad prefix.
import { describe, expect, test } from 'vitest';
import { provider, signal, useMiniVast, vast } from './provider.test-util';

useMiniVast();

describe('listLabeled', () => {
  test('by label prefix, or by the env marker when the label was changed', async () => {
    const a = vast.addInstance({ label: 'tender-ab12cd-r1-node-0', actual_status: 'running' });
    const b = vast.addInstance({
      label: 'my renamed box',
      extra_env: [
        ['TENDER_LABEL', 'tender-ab12cd-r1-node-1'],
        ['-p 8080:8080', '1'],
      ],
    });
    vast.addInstance({ label: 'tender-zz99zz-r1-node-0' });
    vast.addInstance({ label: null });
    vast.addInstance({ label: 'tender-ab12cd-r9-node-0', cur_state: 'unloaded' });

    const listed = await provider().listLabeled('tender-ab12cd-', signal());

    expect(listed.map((l) => [l.label, l.contractId])).toEqual([
      ['tender-ab12cd-r1-node-0', String(a.id)],
      ['tender-ab12cd-r1-node-1', String(b.id)],
    ]);
    expect(listed[0]).toMatchObject({
      leaseId: `vastai:${a.id}`,
      pricePerHour: 0.406667,
      destroyHandle: { provider: 'vastai', instanceId: String(a.id) },
      metadata: { machine_id: '39999', gpu: '1x RTX 4090', status: 'running' },
    });
  });

  test('follows next_token pages', async () => {
    vast.intercept = (req) => {
      if (req.path !== '/api/v0/instances/') return undefined;
      const token = req.query.get('after_token');
      if (!token)
        return {
          json: {
            instances: [{ id: 1, label: 'tender-x-a' }],
            next_token: 'p2',
            total_instances: 2,
          },
        };
      if (token === 'p2')
        return {
          json: {
            instances: [{ id: 2, label: 'tender-x-b' }],
            next_token: null,
            total_instances: 2,
          },
        };
      return { status: 400, json: { msg: 'bad token' } };
    };

    const listed = await provider().listLabeled('tender-x-', signal());

    expect(listed.map((l) => l.contractId)).toEqual(['1', '2']);
  });

  test('refuses a list shorter than the total it announces (a hidden lease bills)', async () => {
    vast.intercept = () => ({
      json: { instances_found: 30, instances: [{ id: 1, label: 'tender-x-a' }] },
    });

    await expect(provider().listLabeled('tender-x-', signal())).rejects.toThrow(
      /announced 30 instances but returned 1/,
    );
  });

  test.each(['', ' ', 'a b', '../'])(
    'refuses the prefix %j (it would list everything)',
    async (prefix) => {
      await expect(provider().listLabeled(prefix, signal())).rejects.toThrow(/bad label prefix/);
    },
  );
});
