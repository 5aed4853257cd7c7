// The host key decision as a table: pins × known_hosts × offered key. Pins live in a map
// here (the decision is the point); one case runs against a real ledger file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import { Ledger } from '../ledger/ledger';
import { hostKeyCheck, type HostKeyPins, ledgerPins, splitEndpoint } from './host-key-check';
import { type HostKeyInfo, hostKeyInfo } from './host-key-info';
import { parseKnownHosts } from './known-hosts';

function newKey(type: 'ed25519' | 'ecdsa' = 'ed25519'): HostKeyInfo {
  const pair =
    type === 'ed25519'
      ? ssh2.utils.generateKeyPairSync('ed25519')
      : ssh2.utils.generateKeyPairSync('ecdsa', { bits: 256 });
  return hostKeyInfo(Buffer.from(pair.public.split(' ')[1]!, 'base64'));
}

const A = newKey();
const B = newKey();
const C = newKey('ecdsa');
const line = (hosts: string, k: HostKeyInfo, marker = '') =>
  `${marker}${hosts} ${k.type} ${k.key.toString('base64')}`;

function mapPins(initial: Record<string, HostKeyInfo> = {}) {
  const map = new Map<string, { fingerprint: string; keyType: string }>();
  for (const [scope, k] of Object.entries(initial))
    map.set(scope, { fingerprint: k.fingerprint, keyType: k.type });
  const pins: HostKeyPins = { get: (s) => map.get(s), pin: (p) => void map.set(p.scope, p) };
  return { pins, map };
}

const ENDPOINT = '10.0.0.7:22001';

interface Case {
  name: string;
  pinned?: HostKeyInfo;
  knownHosts?: string[];
  offered: HostKeyInfo;
  accept: boolean;
  pinnedAfter?: HostKeyInfo | null;
  says?: string[];
  /** A process that only reads the ledger: it cannot pin. */
  readOnly?: boolean;
}

const cases: Case[] = [
  { name: 'first contact pins the key', offered: A, accept: true, pinnedAfter: A },
  { name: 'the pinned key again', pinned: A, offered: A, accept: true, pinnedAfter: A },
  {
    name: 'a different key than the pin',
    pinned: A,
    offered: B,
    accept: false,
    pinnedAfter: A,
    says: [
      `pinned ${A.fingerprint}`,
      `offered ${B.fingerprint}`,
      'gpu-1 (10.0.0.7:22001) changed',
      'tender hosts forget-key gpu-1',
    ],
  },
  {
    name: 'known_hosts lists the offered key: accepted and pinned',
    knownHosts: [line('[10.0.0.7]:22001', B), line('[10.0.0.7]:22001', C)],
    offered: B,
    accept: true,
    pinnedAfter: B,
  },
  {
    name: 'known_hosts contradicts the key on first contact',
    knownHosts: [line('[10.0.0.7]:22001', A)],
    offered: B,
    accept: false,
    pinnedAfter: null,
    says: [
      'does not match known_hosts',
      A.fingerprint,
      B.fingerprint,
      "ssh-keygen -R '[10.0.0.7]:22001'",
    ],
  },
  {
    name: 'known_hosts for another port does not apply',
    knownHosts: [line('10.0.0.7', A), line('[10.0.0.7]:22', A)],
    offered: B,
    accept: true,
    pinnedAfter: B,
  },
  {
    name: 'a @revoked key is refused even when pinned',
    pinned: A,
    knownHosts: [line('*', A, '@revoked ')],
    offered: A,
    accept: false,
    says: ['@revoked', A.fingerprint],
  },
  {
    name: 'a @cert-authority line is not a host key',
    knownHosts: [line('*', A, '@cert-authority ')],
    offered: B,
    accept: true,
    pinnedAfter: B,
  },
  {
    name: 'a pin is not replaced because known_hosts now lists another key',
    pinned: A,
    knownHosts: [line('[10.0.0.7]:22001', B)],
    offered: B,
    accept: false,
    pinnedAfter: A,
    says: ['changed'],
  },
  {
    name: 'read-only, nothing pinned: refused, naming why and the fix',
    readOnly: true,
    offered: A,
    accept: false,
    pinnedAfter: null,
    says: [
      'no host key is pinned for gpu-1 (10.0.0.7:22001)',
      A.fingerprint,
      'only reads the data folder',
      'try again once the node has joined',
      'known_hosts',
    ],
  },
  { name: 'read-only, the pinned key', readOnly: true, pinned: A, offered: A, accept: true },
  {
    name: 'read-only, another key than the pin',
    readOnly: true,
    pinned: A,
    offered: B,
    accept: false,
    says: ['changed'],
  },
  {
    name: 'read-only, nothing pinned, known_hosts lists the key: accepted, not pinned',
    readOnly: true,
    knownHosts: [line('[10.0.0.7]:22001', B)],
    offered: B,
    accept: true,
    pinnedAfter: null,
  },
  {
    name: 'read-only, nothing pinned, known_hosts lists another key',
    readOnly: true,
    knownHosts: [line('[10.0.0.7]:22001', A)],
    offered: B,
    accept: false,
    says: ['does not match known_hosts'],
  },
];

describe('hostKeyCheck', () => {
  for (const c of cases) {
    it(c.name, () => {
      const { pins, map } = mapPins(c.pinned ? { 'gpu-1': c.pinned } : {});
      const check = hostKeyCheck({
        scope: 'gpu-1',
        endpoint: ENDPOINT,
        pins: c.readOnly ? { get: pins.get } : pins,
        knownHosts: parseKnownHosts((c.knownHosts ?? []).join('\n')),
      });
      const reason = check(c.offered);
      if (c.accept) expect(reason).toBeNull();
      else expect(reason).toEqual(expect.stringContaining('refusing'));
      for (const s of c.says ?? []) expect(reason).toContain(s);
      if (c.pinnedAfter !== undefined)
        expect(map.get('gpu-1')?.fingerprint ?? null).toBe(c.pinnedAfter?.fingerprint ?? null);
    });
  }

  it('asks for the pinned key type first, then the types known_hosts lists', () => {
    const { pins } = mapPins({ 'gpu-1': C });
    const check = hostKeyCheck({
      scope: 'gpu-1',
      endpoint: ENDPOINT,
      pins,
      knownHosts: parseKnownHosts(
        [line('[10.0.0.7]:22001', A), line('[10.0.0.7]:22001', C)].join('\n'),
      ),
    });
    expect(check.preferredKeyTypes?.()).toEqual(['ecdsa-sha2-nistp256', 'ssh-ed25519']);
    const fresh = hostKeyCheck({ scope: 'x', endpoint: ENDPOINT, pins: mapPins().pins });
    expect(fresh.preferredKeyTypes?.()).toEqual([]);
  });

  it('pins into the ledger, once, and refuses a later key from it', () => {
    const home = mkdtempSync(join(tmpdir(), 'tender-hostkey-'));
    const ledger = Ledger.openWriter(home);
    try {
      const check = () =>
        hostKeyCheck({ scope: 'gpu-1', endpoint: ENDPOINT, pins: ledgerPins(ledger, () => 1_000) });
      expect(check()(A)).toBeNull();
      expect(ledger.getHostKey('gpu-1')).toMatchObject({
        fingerprint: A.fingerprint,
        keyType: 'ssh-ed25519',
        endpoint: ENDPOINT,
        pinnedAt: 1_000,
      });
      expect(check()(A)).toBeNull();
      expect(check()(B)).toContain(`pinned ${A.fingerprint}, offered ${B.fingerprint}`);
      expect(ledger.getHostKey('gpu-1')?.fingerprint).toBe(A.fingerprint);
    } finally {
      ledger.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('splits endpoints, IPv6 included', () => {
    expect(splitEndpoint('1.2.3.4:22001')).toEqual({ host: '1.2.3.4', port: 22001 });
    expect(splitEndpoint('[::1]:2222')).toEqual({ host: '::1', port: 2222 });
    expect(splitEndpoint('gpu.lan')).toEqual({ host: 'gpu.lan', port: 22 });
  });
});
