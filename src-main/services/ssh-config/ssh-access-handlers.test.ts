import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanUpLedgers,
  commit,
  leaseOf,
  seedRun,
  T0,
  tempHome,
  writer,
} from '../../ledger/ledger.test-util';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import type { NodeEndpoint } from '../../providers/provider';
import { sshAccessHandlers } from './ssh-access-handlers';

const userHomes: string[] = [];
afterEach(() => {
  cleanUpLedgers();
  for (const d of userHomes.splice(0)) rmSync(d, { recursive: true, force: true });
});

const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIE9j';
const RUN = 'r-ledger01';

/** A node with a lease at `endpoint` (null: none learnt yet), its key pinned when asked. */
function leased(ledger: Ledger, rec: NodeRecord, endpoint: NodeEndpoint | null, pin: boolean) {
  rec = commit(ledger, rec, { type: 'Start' }, T0 + 1);
  rec = commit(ledger, rec, { type: 'LeaseCreated', lease: leaseOf(rec), endpoint: null }, T0 + 2);
  if (endpoint) rec = commit(ledger, rec, { type: 'EndpointKnown', endpoint }, T0 + 3);
  if (pin)
    ledger.pinHostKey({
      scope: `lease:${rec.label}`,
      endpoint: '127.0.0.1:4000',
      keyType: 'ssh-ed25519',
      fingerprint: 'SHA256:x',
      publicKey: KEY,
      pinnedAt: T0 + 3,
    });
  return rec;
}

const ssh = (label: string): NodeEndpoint => ({
  kind: 'ssh',
  host: '127.0.0.1',
  port: 4000,
  user: 'root',
  authRef: 'tender',
  hostKeyScope: `lease:${label}`,
  knownHosts: false,
});

function setup() {
  const home = tempHome();
  const ledger = writer(home);
  const userHome = mkdtempSync(join(tmpdir(), 'tender-user-'));
  userHomes.push(userHome);
  const userConfig = join(userHome, '.ssh', 'config');
  const h = sshAccessHandlers({ home, ledger, userConfig: () => userConfig });
  return { home, ledger, h, userConfig };
}

describe('node.sshAccess', () => {
  it.each<[string, (ledger: Ledger, rec: NodeRecord) => void, boolean, RegExp | null]>([
    ['a reached ssh node', (l, r) => leased(l, r, ssh(r.label), true), true, null],
    [
      'a local node',
      (l, r) => leased(l, r, { kind: 'local', dir: '/tmp/x' }, false),
      false,
      /local-provider node is a folder/,
    ],
    ['a node without an address', (l, r) => leased(l, r, null, false), false, /no address yet/],
    ['a node not reached yet', (l, r) => leased(l, r, ssh(r.label), false), false, /no host key/],
    [
      'a destroyed node',
      (l, r) => {
        const rec = leased(l, r, ssh(r.label), true);
        commit(
          l,
          commit(l, rec, { type: 'Destroy', reason: 'down' }, T0 + 5),
          {
            type: 'DestroyConfirmed',
          },
          T0 + 6,
        );
      },
      false,
      /its lease has ended/,
    ],
  ])('%s', async (_name, arrange, hasEntry, why) => {
    const { ledger, h } = setup();
    const [n0] = seedRun(ledger, 'node-0');
    arrange(ledger, n0!);
    const a = await h['node.sshAccess']({ runId: RUN, logicalId: 'node-0' });
    expect(a.alias).toBe(`tender-${RUN}-node-0`);
    expect(a.hasEntry).toBe(hasEntry);
    if (why) expect(a.why).toMatch(why);
    else expect(a.why).toBeNull();
  });

  it('an unknown node says so', async () => {
    const { ledger, h } = setup();
    seedRun(ledger, 'node-0');
    const a = await h['node.sshAccess']({ runId: RUN, logicalId: 'node-7' });
    expect(a).toMatchObject({ hasEntry: false, why: `no node node-7 in run ${RUN}` });
  });
});

describe('run.sshAccess', () => {
  it.each<[string, (ledger: Ledger, rec: NodeRecord) => void, boolean, RegExp | null]>([
    ['a reached ssh node', (l, r) => leased(l, r, ssh(r.label), true), true, null],
    [
      'a local run',
      (l, r) => leased(l, r, { kind: 'local', dir: '/tmp/x' }, false),
      false,
      /local-provider node is a folder/,
    ],
    [
      'a Slurm run',
      (l, r) => leased(l, r, { ...ssh(r.label), slurmJobId: '42' } as NodeEndpoint, true),
      false,
      /Slurm compute node has no sshd/,
    ],
  ])('%s', async (_name, arrange, hasEntry, why) => {
    const { ledger, h } = setup();
    const [n0] = seedRun(ledger, 'node-0');
    arrange(ledger, n0!);
    const a = await h['run.sshAccess']({ runId: RUN });
    expect(a).toMatchObject({ alias: `tender-${RUN}`, hasEntry });
    expect(a.logicalId).toBe(hasEntry ? 'node-0' : null);
    if (why) expect(a.why).toMatch(why);
    else expect(a.why).toBeNull();
  });
});

describe('sshConfig.install / uninstall', () => {
  it('adds and removes exactly the Include line the CLI does', async () => {
    const { home, h, userConfig } = setup();
    const line = `Include ${join(home, 'ssh', 'config')}`;
    expect(await h['sshConfig.get']({})).toEqual({ installed: false, line, userConfig });
    expect((await h['sshConfig.install']({})).installed).toBe(true);
    expect(readFileSync(userConfig, 'utf8')).toBe(`${line}\n`);
    await h['sshConfig.install']({});
    expect(readFileSync(userConfig, 'utf8')).toBe(`${line}\n`);
    expect((await h['sshConfig.uninstall']({})).installed).toBe(false);
    expect(readFileSync(userConfig, 'utf8')).toBe('');
  });
});
