// EarlyDials (nodes/early-dials.ts) over real OpenSSH and a real ledger: `tender run`'s
// hosts are dialed before its core opens, their keys checked once the ledger is open, and
// the connection goes to the run's first user of that host. An early dial is a head start
// only: whatever is wrong, the run's own dial finds and says it, in the usual words.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { Ledger } from '../../src-main/ledger/ledger';
import { EarlyDials } from '../../src-main/nodes/early-dials';
import { writeHosts, type HostEntry } from '../../src-main/providers/ssh/hosts-file';
import { DEFAULT_TIMING } from '../../src-main/services/settings/timing';
import { agentBundlePath } from '../helpers/agent-bundle';
import { runOnHosts, sshJob } from '../helpers/ssh-core';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { eventually } from '../helpers/wait';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Logins sshd accepted so far. */
const accepted = (f: SshdFixture) => (f.log().match(/Accepted publickey/g) ?? []).length;

async function setup() {
  const f = await startSshd();
  cleanups.push(() => f.stop());
  const root = mkdtempSync(join(tmpdir(), 'tender-early-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hello early\n');
  const keyFile = join(root, 'key');
  writeFileSync(keyFile, f.clientKey.privateKey);
  chmodSync(keyFile, 0o600);
  const host: HostEntry = {
    name: 'h0',
    host: f.host,
    port: f.port,
    user: f.user,
    identityFile: keyFile,
  };
  writeHosts(home, [host]);
  const open = (earlyDials?: EarlyDials) => {
    const core = TenderCore.open({
      home,
      env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
      timing: {
        deadlines: { ...DEFAULT_TIMING.deadlines, connectMs: 30_000 },
        endpointPollMs: 200,
        destroyPollMs: 200,
      },
      earlyDials,
    });
    cleanups.push(() => core.close());
    return core;
  };
  /** A pin made before this run, as an earlier Tender would have. */
  const pin = (keyType: string, fingerprint: string) => {
    const ledger = Ledger.openWriter(home);
    ledger.pinHostKey({
      scope: 'host:h0',
      endpoint: `${f.host}:${f.port}`,
      keyType,
      fingerprint,
      pinnedAt: Date.now(),
    });
    ledger.close();
  };
  return { f, home, work, host, open, pin };
}

describe('a run whose hosts were dialed while its core opened', () => {
  it('logs in once the ledger is open, pins the key on first contact, and the run rides on that connection', async () => {
    const { f, home, work, host, open } = await setup();
    const early = new EarlyDials(home, [host]);
    const core = open(early);
    early.close(); // what the CLI does once the core is open: nothing left to end
    await eventually(() => accepted(f) === 1); // the early login
    expect(core.ledger.getHostKey('host:h0')?.fingerprint).toBe(f.hostKeyFingerprint);
    const run = await runOnHosts(core, sshJob(work), ['h0']);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    // Without the early one taken, the run's own two would make three.
    expect(accepted(f)).toBeLessThanOrEqual(2);
    expect(core.ledger.liveLeases()).toEqual([]);
  }, 90_000);

  it.each([
    ['a key other than the one pinned', 'ssh-ed25519'],
    ['a key of another type than the one pinned', 'ssh-rsa'],
  ])(
    '%s: the early dial is dropped, and the run’s own dial refuses it in the usual words',
    async (_, keyType) => {
      const { f, home, work, host, open, pin } = await setup();
      pin(keyType, 'SHA256:an-earlier-machine');
      const early = new EarlyDials(home, [host]);
      const core = open(early);
      const run = await runOnHosts(core, sshJob(work), ['h0']);
      expect(run.status).toBe('failed');
      expect(run.failedReason).toContain(
        `host key for host:h0 (${f.host}:${f.port}) changed: pinned SHA256:an-earlier-machine, offered ${f.hostKeyFingerprint}`,
      );
      expect(run.failedReason).not.toMatch(/offered ssh-/);
      expect(accepted(f)).toBe(0);
      expect(core.ledger.getHostKey('host:h0')?.fingerprint).toBe('SHA256:an-earlier-machine');
    },
    90_000,
  );

  it('the core never opened: the dial ends without logging in, and nothing is pinned', async () => {
    const { f, home, host, open } = await setup();
    const early = new EarlyDials(home, [host]);
    await eventually(() => connectionsTo(f.port) === 1); // waits on the pins, not logged in
    early.close();
    await eventually(() => connectionsTo(f.port) === 0);
    expect(accepted(f)).toBe(0);
    expect(open().ledger.getHostKey('host:h0')).toBeUndefined();
  });
});

/** Established TCP connections to sshd's port (their client ends), as the kernel lists
 *  them in /proc/net/tcp: the remote address's port in hex, state 01. */
function connectionsTo(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[2]?.endsWith(`:${hexPort}`) && f[3] === '01').length;
}
