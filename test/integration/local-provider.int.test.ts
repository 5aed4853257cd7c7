// The local provider in a private temp home: the shared provider conformance suite, then
// what only local promises — destroy kills every process group the node registered in
// `<dir>/pids/` and removes the folder.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import { type Provider, ProviderError } from '../../src-main/providers/provider';
import { providerConformance } from '../helpers/provider-conformance';

const T0 = 1_700_000_000_000;

function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'tender-local-provider-'));
}

providerConformance('local', async () => {
  const home = tempHome();
  return {
    provider: new LocalProvider(home, () => T0),
    reopen: () => new LocalProvider(home, () => T0),
    shape: {},
    dispose: async () => rmSync(home, { recursive: true, force: true }),
  };
});

describe('local provider', () => {
  const homes: string[] = [];
  const groups: ChildProcess[] = [];
  const signal = new AbortController().signal;

  afterEach(() => {
    for (const child of groups.splice(0)) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone: what the tests expect
      }
    }
    for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
  });

  function setup(now = () => T0) {
    const home = tempHome();
    homes.push(home);
    const provider: Provider = new LocalProvider(home, now); // through the interface, as used
    return { home, provider };
  }

  const request = (label: string) => ({ label, runId: 'r-1', logicalId: 'node-0', shape: {} });

  /** A process group led by `sh -c '<prelude>; echo ready; exec sleep 1000'`, once it has
   *  said ready (so a signal cannot arrive before the prelude ran), and its exit: the
   *  signal that ended it. */
  async function startGroup(
    prelude = ':',
  ): Promise<{ child: ChildProcess; ended: Promise<string | null> }> {
    const script = `${prelude}; echo ready; exec sleep 1000`;
    const child = spawn('sh', ['-c', script], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    groups.push(child);
    const ended = new Promise<string | null>((resolve) =>
      child.once('exit', (_code, sig) => resolve(sig)),
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`sh exited ${code} before it was ready`)));
    });
    return { child, ended };
  }

  function groupIsGone(pgid: number): boolean {
    try {
      process.kill(-pgid, 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  it('puts the lease in a folder under <home>/local/leases and answers it as the endpoint', async () => {
    const { home, provider } = setup();
    const label = 'tender-abc-run1-node-0';
    const dir = join(home, 'local', 'leases', label);

    const created = await provider.createLease(request(label), signal);

    expect(created.endpoint).toEqual({ kind: 'local', dir });
    expect(await provider.lookupEndpoint(created.lease, signal)).toEqual({ kind: 'local', dir });
    expect(created.lease.pricePerHour).toBeNull(); // nothing bills
  });

  it('stamps the lease with the injected clock once; creating again keeps the first stamp', async () => {
    let now = T0;
    const { home, provider } = setup(() => now);
    const label = 'tender-abc-run1-node-0';

    const first = await provider.createLease(request(label), signal);
    now = T0 + 60_000;
    const again = await provider.createLease(request(label), signal);

    expect(first.lease.metadata).toEqual({ createdAt: String(T0) });
    expect(again.lease.metadata).toEqual({ createdAt: String(T0) });
    const file = JSON.parse(
      readFileSync(join(home, 'local', 'leases', label, 'lease.json'), 'utf8'),
    ) as unknown;
    expect(file).toEqual({ label, runId: 'r-1', logicalId: 'node-0', createdAt: T0 });
  });

  it('refuses a label that is not a plain folder name, as fatal', async () => {
    const { home, provider } = setup();

    const err = await provider.createLease(request('../escape'), signal).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).opts.fatal).toBe(true);
    expect(existsSync(join(home, 'local'))).toBe(false);
  });

  it('refuses handles naming "." or "..", so no destroy can reach outside its lease folder', async () => {
    const { home, provider } = setup();
    await provider.createLease(request('tender-abc-run1-node-0'), signal);
    for (const label of ['.', '..', 'a/b']) {
      await expect(provider.createLease(request(label), signal)).rejects.toBeInstanceOf(
        ProviderError,
      );
      const handle = { provider: 'local', leaseId: `local:${label}`, contractId: label };
      await expect(provider.destroyLease(handle, signal)).rejects.toBeInstanceOf(ProviderError);
      await expect(provider.isGone(handle, signal)).rejects.toBeInstanceOf(ProviderError);
    }
    expect(existsSync(join(home, 'local', 'leases', 'tender-abc-run1-node-0'))).toBe(true);
  });

  it('says a destroyed lease can never answer an endpoint (fatal)', async () => {
    const { provider } = setup();
    const { lease } = await provider.createLease(request('tender-abc-run1-node-0'), signal);
    await provider.destroyLease(lease.destroyHandle, signal);

    const err = await provider.lookupEndpoint(lease, signal).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).opts.fatal).toBe(true);
  });

  it('lists a folder whose lease.json was never written (a crash mid-create)', async () => {
    const { home, provider } = setup();
    mkdirSync(join(home, 'local', 'leases', 'tender-abc-run1-node-0'), { recursive: true });

    const listed = await provider.listLabeled('tender-abc-', signal);

    expect(listed.map((l) => [l.label, l.metadata])).toEqual([['tender-abc-run1-node-0', {}]]);
  });

  it('destroy kills every process group listed in pids/, then removes the folder', async () => {
    const { provider } = setup();
    const created = await provider.createLease(request('tender-abc-run1-node-0'), signal);
    const dir = (created.endpoint as { dir: string }).dir;
    const pids = join(dir, 'pids');
    mkdirSync(pids);
    const a = await startGroup();
    const b = await startGroup();
    // Ignores SIGTERM (an ignored signal survives exec): only the SIGKILL after the grace ends it.
    const stubborn = await startGroup('trap "" TERM');
    for (const g of [a, b, stubborn]) writeFileSync(join(pids, String(g.child.pid)), '');
    writeFileSync(join(pids, 'not-a-pid'), '');

    await provider.destroyLease(created.lease.destroyHandle, signal);

    expect(await a.ended).toBe('SIGTERM');
    expect(await b.ended).toBe('SIGTERM');
    expect(await stubborn.ended).toBe('SIGKILL');
    for (const g of [a, b, stubborn]) expect(groupIsGone(g.child.pid!)).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(await provider.isGone(created.lease.destroyHandle, signal)).toBe(true);
  });

  it('leaves process groups of other leases running', async () => {
    const { provider } = setup();
    const gone = await provider.createLease(request('tender-abc-run1-node-0'), signal);
    const kept = await provider.createLease(request('tender-abc-run1-node-1'), signal);
    const keptDir = (kept.endpoint as { dir: string }).dir;
    mkdirSync(join(keptDir, 'pids'));
    const other = await startGroup();
    writeFileSync(join(keptDir, 'pids', String(other.child.pid)), '');

    await provider.destroyLease(gone.lease.destroyHandle, signal);

    expect(groupIsGone(other.child.pid!)).toBe(false);
    expect(existsSync(keptDir)).toBe(true);
  });
});
