// VastProvider.destroyLease and isGone against the MiniVast fake: what counts as destroyed,
// what throws so the orchestrator retries, and which instance states are gone.
import { describe, expect, test } from 'vitest';
import { provider, signal, useMiniVast, vast } from './provider.test-util';

useMiniVast();

describe('destroyLease and isGone', () => {
  const handle = (id: number) => ({
    provider: 'vastai',
    leaseId: `vastai:${id}`,
    instanceId: String(id),
  });

  test('destroys, then reports gone', async () => {
    const inst = vast.addInstance({ actual_status: 'running' });
    const p = provider();

    expect(await p.isGone(handle(inst.id), signal())).toBe(false);
    await p.destroyLease(handle(inst.id), signal());

    expect(vast.server.calls('DELETE')[0]!.path).toBe(`/api/v0/instances/${inst.id}/`);
    expect(await p.isGone(handle(inst.id), signal())).toBe(true);
  });

  test('a lease already gone (404 not_found, 200 no_such_instance) is destroyed', async () => {
    const p = provider();
    await expect(p.destroyLease(handle(1), signal())).resolves.toBeUndefined();

    vast.intercept = () => ({
      json: { success: false, error: 'no_such_instance', msg: 'no such' },
    });
    await expect(p.destroyLease(handle(2), signal())).resolves.toBeUndefined();
  });

  test('a 404 HTML page (a wrong URL, a proxy) is not proof: it throws', async () => {
    vast.intercept = () => ({
      status: 404,
      contentType: 'text/html',
      text: '<title>404 Not Found</title>',
    });

    await expect(provider().destroyLease(handle(1), signal())).rejects.toThrow(
      /destroy instance 1 failed: HTTP 404: 404 Not Found \(an HTML page\)/,
    );
  });

  test('a refusal with 200 {success:false} throws (the orchestrator retries)', async () => {
    vast.intercept = () => ({ json: { success: false, error: 'busy', msg: 'try later' } });

    await expect(provider().destroyLease(handle(1), signal())).rejects.toThrow(
      'destroy instance 1 refused: try later',
    );
  });

  test('500s are retried under the deadline', async () => {
    const inst = vast.addInstance();
    let failures = 2;
    vast.intercept = (req) =>
      req.method === 'DELETE' && failures-- > 0 ? { status: 502, text: '' } : undefined;

    await provider().destroyLease(handle(inst.id), signal());

    expect(vast.instances.size).toBe(0);
    expect(vast.server.calls('DELETE')).toHaveLength(3);
  });

  test.each([
    ['stopped (still bills storage)', { actual_status: 'stopped', cur_state: 'stopped' }, false],
    ['exited', { actual_status: 'exited' }, false],
    ['being destroyed', { next_state: 'unloaded' }, false],
    ['allocation released', { cur_state: 'unloaded' }, true],
  ])('isGone: %s → %s', async (_n, over, gone) => {
    const inst = vast.addInstance(over);

    expect(await provider().isGone(handle(inst.id), signal())).toBe(gone);
  });

  test('a handle that names no instance is refused', async () => {
    await expect(
      provider().isGone({ provider: 'vastai', leaseId: 'vastai:../x' }, signal()),
    ).rejects.toThrow(/bad vastai lease handle/);
  });
});
