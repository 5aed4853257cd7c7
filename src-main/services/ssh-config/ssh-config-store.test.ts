import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanUpLedgers,
  commit,
  leaseOf,
  reader,
  seedRun,
  T0,
  tempHome,
  writer,
} from '../../ledger/ledger.test-util';
import type { NodeEndpoint } from '../../providers/provider';
import { SshConfigKeeper } from './ssh-config-keeper';
import { lookSshConfig, sshConfigPaths } from './ssh-config-store';

afterEach(cleanUpLedgers);

const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIE9j';

function endpoint(label: string, port: number): NodeEndpoint {
  return {
    kind: 'ssh',
    host: '127.0.0.1',
    port,
    user: 'root',
    authRef: 'tender',
    hostKeyScope: `lease:${label}`,
    knownHosts: false,
  };
}

describe('ssh config from the ledger', () => {
  it('follows a lease: an entry while it lives (destroying included), none once confirmed destroyed', async () => {
    const home = tempHome();
    const ledger = writer(home);
    const [n0] = seedRun(ledger, 'node-0');
    const keeper = new SshConfigKeeper({ home, ledger, isWriter: true, debounceMs: 1 });
    keeper.start();
    const paths = sshConfigPaths(home);
    const config = () => readFileSync(paths.config, 'utf8');
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    expect(statSync(paths.config).mode & 0o777).toBe(0o600);
    expect(statSync(paths.knownHosts).mode & 0o777).toBe(0o600);
    expect(config()).not.toMatch(/^Host /m);

    let rec = commit(ledger, n0!, { type: 'Start' }, T0 + 1);
    const lease = leaseOf(rec);
    rec = commit(ledger, rec, { type: 'LeaseCreated', lease, endpoint: null }, T0 + 2);
    rec = commit(
      ledger,
      rec,
      { type: 'EndpointKnown', endpoint: endpoint(rec.label, 4000) },
      T0 + 3,
    );
    ledger.pinHostKey({
      scope: `lease:${rec.label}`,
      endpoint: '127.0.0.1:4000',
      keyType: 'ssh-ed25519',
      fingerprint: 'SHA256:x',
      publicKey: KEY,
      pinnedAt: T0 + 3,
    });
    rec = commit(ledger, rec, { type: 'BootstrapStarted', sessionId: 1 }, T0 + 4);
    await settled();
    expect(config()).toMatch(
      /^Host tender-r-ledger01-node-0 tender-r-ledger01\n {2}HostName 127.0.0.1\n {2}Port 4000\n/m,
    );
    expect(readFileSync(paths.knownHosts, 'utf8')).toBe(
      `tender-lease-${rec.label} ssh-ed25519 ${KEY}\n`,
    );

    // A reader's look (another process, after a kill -9 of the writer) rebuilds the same.
    const before = config();
    lookSshConfig(home, (h) => reader(h));
    expect(config()).toBe(before);

    rec = commit(ledger, rec, { type: 'Destroy', reason: 'down' }, T0 + 5);
    await settled();
    expect(config()).toContain('Host tender-r-ledger01-node-0'); // destroying: still billed, still reachable
    commit(ledger, rec, { type: 'DestroyConfirmed' }, T0 + 6);
    await settled();
    expect(config()).not.toMatch(/^Host /m);
    expect(readFileSync(paths.knownHosts, 'utf8')).toBe('');
    keeper.close();
    expect(readdirSync(paths.dir).sort()).toEqual(['config', 'known_hosts']);
  });

  it('no ledger yet: an empty config', () => {
    const home = tempHome();
    const text = lookSshConfig(home, () => null);
    expect(text.config).not.toMatch(/^Host /m);
    expect(readFileSync(join(home, 'ssh', 'config'), 'utf8')).toBe(text.config);
  });
});

/** Past the keeper's debounce (1 ms here). */
function settled(): Promise<void> {
  return new Promise((r) => setTimeout(r, 20));
}
