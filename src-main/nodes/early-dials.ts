// `tender run` on your own hosts dials each of them while its core opens (the ledger, the
// services, the run's start: ~40 ms before the first dial, a sixth of a handshake on a far
// link). The connection's host key is checked once the ledger is open, against the same
// pins and known_hosts as any dial (the handshake waits for that verdict); the core's
// connection pool then lends it to the first user of that endpoint (ShellPool.adopt). An
// early dial is only ever a head start: one that fails, or is offered a key of another type
// than the one pinned, is dropped without a word, and its user dials as it always did and
// says what is wrong.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HostEntry } from '../providers/ssh/hosts-file';
import { endpointOf } from '../providers/ssh/ssh-provider';
import type { DeferredHostKeyCheck, HostKeyInfo } from '../transport/host-key-info';
import { hostKeyCheck, type HostKeyPins } from '../transport/host-key-check';
import { knownHostKeys, readKnownHosts } from '../transport/known-hosts';
import type { ShellPool } from '../transport/shell-pool';
import { connectSsh, type SshShell } from '../transport/ssh-shell';
import { poolKey, privateKeyFor, type SshEndpoint } from './ssh-connect';

/** Long enough for a handshake to a far, busy host; its user dials anew past it. */
const EARLY_DIAL_MS = 20_000;

interface Dialing {
  shell: Promise<SshShell>;
  abort: AbortController;
}

export class EarlyDials {
  private readonly dials = new Map<string, Dialing>();
  private handPins!: (pins: HostKeyPins | null) => void;
  private readonly pins = new Promise<HostKeyPins | null>((r) => (this.handPins = r));

  /** Dials each host whose login key exists (Tender's own is made by the run's dial). */
  constructor(home: string, hosts: HostEntry[]) {
    for (const host of hosts) {
      const ep = endpointOf(host);
      const key = poolKey(ep);
      if (this.dials.has(key) || !hasKey(ep, home)) continue;
      let privateKey: string;
      try {
        privateKey = privateKeyFor(ep, home);
      } catch {
        continue; // its own dial says what is wrong with the key
      }
      const abort = new AbortController();
      const shell = connectSsh(
        { host: ep.host, port: ep.port, user: ep.user, privateKey },
        { hostKey: this.check(ep), signal: abort.signal, deadlineMs: EARLY_DIAL_MS, once: true },
      );
      shell.catch(() => {}); // a failure is nobody's: the user dials
      this.dials.set(key, { shell, abort });
    }
  }

  /** Hands every dial to the core's pool, whose host keys are checked against `pins`. */
  handTo(pool: ShellPool, pins: HostKeyPins): void {
    this.handPins(pins);
    for (const [key, d] of this.dials) pool.adopt(key, d.shell, () => d.abort.abort());
    this.dials.clear();
  }

  /** Ends the dials no pool took (the core never opened). */
  close(): void {
    this.handPins(null);
    for (const d of this.dials.values()) {
      d.abort.abort(new Error('not used'));
      void d.shell.then(
        (s) => s.close(),
        () => {},
      );
    }
    this.dials.clear();
  }

  /** The endpoint's check, once the pins are handed over. A key of another type than the
   *  one pinned is refused here (the dial asked for known_hosts' types only, not knowing the
   *  pin's): its user's own dial asks for the pinned type first. */
  private check(ep: SshEndpoint): DeferredHostKeyCheck {
    const endpoint = `${ep.host}:${ep.port}`;
    const knownHosts = readKnownHosts();
    const check = async (info: HostKeyInfo): Promise<string | null> => {
      const pins = await this.pins;
      if (!pins) return 'not used';
      const pinned = pins.get(ep.hostKeyScope);
      if (pinned && pinned.keyType !== info.type)
        return `pinned ${pinned.keyType}, offered ${info.type}`;
      return hostKeyCheck({ scope: ep.hostKeyScope, endpoint, pins, knownHosts })(info);
    };
    const known = knownHostKeys(knownHosts, ep.host, ep.port).keys.map((k) => k.keyType);
    return Object.assign(check, { preferredKeyTypes: () => [...new Set(known)] });
  }
}

/** Tender's own key is made on first use, by the run's own dial, not here. */
function hasKey(ep: SshEndpoint, home: string): boolean {
  return ep.authRef !== 'tender' || existsSync(join(home, 'keys', 'id_ed25519'));
}
