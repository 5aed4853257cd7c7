import type { HostKeyCheck, HostKeyInfo } from './host-key-info';
import { type KnownHostEntry, knownHostKeys } from './known-hosts';

/** Where pinned keys live: the ledger in the app, a map in tests. */
export interface HostKeyPins {
  get(
    scope: string,
  ): { fingerprint: string; keyType: string; publicKey?: string | null } | undefined;
  /** Absent in a process that only reads the ledger: it cannot pin, so it never trusts a
   *  first key (the writer pins on its own first contact, at bootstrap). `publicKey`: the
   *  key blob in base64 (the user's own ssh checks it through Tender's known_hosts). */
  pin?(p: PinRequest): void;
}

export interface HostKeyCheckOptions {
  /** What the pin belongs to, and the name `tender hosts forget-key` takes. */
  scope: string;
  /** `host:port` (or `[v6]:port`) as dialled: the known_hosts lookup key. */
  endpoint: string;
  pins: HostKeyPins;
  /** The user's known_hosts: when it lists keys for this host:port they are binding. */
  knownHosts?: KnownHostEntry[];
}

export interface PinRequest {
  scope: string;
  endpoint: string;
  keyType: string;
  fingerprint: string;
  publicKey: string;
}

/** Trust on first use, pinned; the user's known_hosts, when it knows the host, is binding
 *  even on first contact; a @revoked key is never accepted. A pin is never replaced here.
 *  Without a way to pin (a read-only process), an unpinned key is refused unless
 *  known_hosts vouches for it. */
export function hostKeyCheck(opts: HostKeyCheckOptions): HostKeyCheck {
  const { scope, endpoint, pins } = opts;
  const { host, port } = splitEndpoint(endpoint);
  const known = knownHostKeys(opts.knownHosts ?? [], host, port);
  const label = scope === endpoint ? endpoint : `${scope} (${endpoint})`;

  const check = (info: HostKeyInfo): string | null => {
    const revoked = known.revoked.find((k) => k.fingerprint === info.fingerprint);
    if (revoked)
      return `the host key ${info.fingerprint} offered by ${label} is marked @revoked in known_hosts (line ${revoked.line}) — refusing to connect`;
    if (known.keys.length > 0 && !known.keys.some((k) => k.fingerprint === info.fingerprint)) {
      const listed = known.keys.map((k) => `${k.fingerprint} (${k.keyType})`).join(', ');
      const sshName = port === 22 ? host : `[${host}]:${port}`;
      return (
        `host key for ${label} does not match known_hosts: it lists ${listed}, the server offered ${info.fingerprint} (${info.type}) — refusing to connect. ` +
        `If the machine was reinstalled, remove the old entry (\`ssh-keygen -R '${sshName}'\`) and connect again.`
      );
    }
    let pinned = pins.get(scope);
    if (!pinned && !pins.pin) {
      if (known.keys.length > 0) return null; // known_hosts lists this very key (above)
      return (
        `no host key is pinned for ${label} yet, and this Tender process only reads the data folder ` +
        `(another one, the app, \`tender run\` or \`tender serve\`, writes it), so it cannot pin the key ` +
        `${info.fingerprint} it was offered: refusing to connect rather than trust it unchecked. ` +
        `The Tender that writes pins a node's key when it first connects (at bootstrap): try again once the node has joined, ` +
        `run this command when no other Tender is open, or list the host in ~/.ssh/known_hosts.`
      );
    }
    const request = {
      scope,
      endpoint,
      keyType: info.type,
      fingerprint: info.fingerprint,
      publicKey: info.key.toString('base64'),
    };
    if (!pinned) {
      pins.pin!(request);
      // Read back: a racing first contact may have pinned another key a moment earlier.
      pinned = pins.get(scope) ?? { fingerprint: info.fingerprint, keyType: info.type };
    }
    if (pinned.fingerprint === info.fingerprint) {
      // A pin made before key blobs were kept learns its blob from the same key.
      if (!pinned.publicKey && pins.pin) pins.pin(request);
      return null;
    }
    return (
      `host key for ${label} changed: pinned ${pinned.fingerprint}, offered ${info.fingerprint} — refusing to connect ` +
      `(it may be another machine at that address, or someone in between). ` +
      `If the machine was reinstalled, run \`tender hosts forget-key ${scope}\` and connect again.`
    );
  };
  check.preferredKeyTypes = () => {
    const pinned = pins.get(scope)?.keyType;
    return [...new Set([...(pinned ? [pinned] : []), ...known.keys.map((k) => k.keyType)])];
  };
  return check;
}

/** What keeps pins durably: the ledger (transport sits below it and names only this). */
export interface PinLedger {
  getHostKey(
    scope: string,
  ): { fingerprint: string; keyType: string; publicKey?: string | null } | undefined;
  pinHostKey(pin: PinRequest & { pinnedAt: number }): unknown;
}

/** The ledger as a pin store. */
export function ledgerPins(ledger: PinLedger, now: () => number = Date.now): HostKeyPins {
  return {
    get: (scope) => ledger.getHostKey(scope),
    pin: (p) => void ledger.pinHostKey({ ...p, pinnedAt: now() }),
  };
}

export function splitEndpoint(endpoint: string): { host: string; port: number } {
  const m = /^\[(.+)\]:(\d+)$/.exec(endpoint) ?? /^([^:]+):(\d+)$/.exec(endpoint);
  if (!m) return { host: endpoint, port: 22 };
  return { host: m[1]!, port: Number(m[2]) };
}
