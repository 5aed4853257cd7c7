// The real machine behind a fake instance: an OpenSSH sshd from test/helpers/sshd.ts with a
// throw-away Unix user (its own HOME, its own processes). The port is reserved at create
// but sshd listens only when the container "starts" (status running): during loading a
// connection is refused, as on Vast. halt() (a stopped container) ends every process of
// that user and keeps its files; stop() (destroyed) removes the user too.
//
// The container environment Vast puts into PID 1 (CONTAINER_ID, CONTAINER_API_KEY, the
// create call's -e variables) cannot be given to a process here, so it is written to
// ~/.vast-env in exactly the format of /proc/<pid>/environ: KEY=VALUE entries, each ended
// by a NUL byte. Mode 0600, owned by the node's user.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { freePort } from '../../helpers/free-port';
import { dirname, join } from 'node:path';
import { SshdFixture } from '../../helpers/sshd';

/** Relative to the node user's HOME. */
export const VAST_ENV_FILE = '.vast-env';

/** "Listen again after" for a paused listener: setTimeout's maximum, i.e. not by itself. */
const NEVER_MS = 2_147_483_647;

type NodeState = 'prepared' | 'listening' | 'paused' | 'stopped';

export class VastNode {
  private state: NodeState = 'prepared';
  private stopping: Promise<void> | null = null;
  /** The start in flight: the fakes' syncs run per request, so two may start it at once. */
  private starting: Promise<void> | null = null;

  private constructor(
    private readonly fixture: SshdFixture,
    private readonly uid: number,
    private readonly gid: number,
  ) {}

  /** Creates the user, host key and config; sshd does not listen yet. `path`: the PATH its
   *  sessions get (a minimal image's). */
  static async prepare(opts: { path?: string } = {}): Promise<VastNode> {
    const fixture = new SshdFixture(
      { user: 'fresh', ...(opts.path !== undefined ? { path: opts.path } : {}) },
      await freePort(),
    );
    try {
      const { uid, gid } = statSync(fixture.home);
      const node = new VastNode(fixture, uid, gid);
      if (!existsSync(node.authorizedKeysFile))
        throw new Error(
          `fake vast: ${node.authorizedKeysFile} is missing; test/helpers/sshd.ts keeps ` +
            'AuthorizedKeysFile beside HOME and this fake writes the instance keys there',
        );
      node.setAuthorizedKeys([]); // the fixture's own client key is not an account key
      return node;
    } catch (err) {
      await fixture.stop();
      throw err;
    }
  }

  get user(): string {
    return this.fixture.user;
  }

  get home(): string {
    return this.fixture.home;
  }

  /** The node user's uid and gid. */
  get ids(): { uid: number; gid: number } {
    return { uid: this.uid, gid: this.gid };
  }

  /** Valid once prepared; may change if the reserved port was taken before listen(). */
  get port(): number {
    return this.fixture.port;
  }

  get hostPublicKey(): string {
    return this.fixture.hostPublicKey;
  }

  get envFile(): string {
    return join(this.home, VAST_ENV_FILE);
  }

  /** The sshd fixture's AuthorizedKeysFile (one per node, beside HOME). */
  get authorizedKeysFile(): string {
    return join(dirname(this.home), 'authorized_keys');
  }

  get isListening(): boolean {
    return this.state === 'listening';
  }

  /** The last lines sshd logged, for failure messages. */
  log(): string {
    return this.fixture.log();
  }

  writeEnv(env: Record<string, string>): void {
    const body = Object.entries(env)
      .map(([k, v]) => `${k}=${v}\0`)
      .join('');
    writeFileSync(this.envFile, body, { mode: 0o600 });
    chownSync(this.envFile, this.uid, this.gid);
  }

  setAuthorizedKeys(keys: string[]): void {
    writeFileSync(this.authorizedKeysFile, keys.map((k) => `${k.trim()}\n`).join(''), {
      mode: 0o644,
    });
  }

  /** Starts (or resumes) listening. Calls while a start is in flight share it. */
  listen(): Promise<void> {
    if (this.state === 'listening' || this.state === 'stopped') return Promise.resolve();
    this.starting ??= this.start().finally(() => (this.starting = null));
    return this.starting;
  }

  private async start(): Promise<void> {
    if (this.state === 'prepared') await this.fixture.begin(0);
    else await this.fixture.restart();
    if (this.state !== 'stopped') this.state = 'listening';
  }

  /** The machine behind the address was reinstalled: sshd restarts with a new host key
   *  (sessions live). A client that pinned the old key must refuse it. */
  async newHostKey(): Promise<void> {
    if (this.state !== 'listening') throw new Error('fake node: not listening');
    await this.fixture.restart({ newHostKey: true });
  }

  /** The container stopped or the host went away: sessions die, connections are refused. */
  async pause(): Promise<void> {
    if (this.state !== 'listening') return;
    this.state = 'paused';
    await this.fixture.killSessions();
    await this.fixture.pauseListener(NEVER_MS);
    // A host that went away drops every connection: one the listener accepted while it was
    // being stopped too (a client kept connections would otherwise go on using it).
    await this.fixture.killSessions();
  }

  /** The container stopped with its disk kept: as pause(), and every process of the user
   *  ends (the agent with it); files stay. listen() is the start. */
  async halt(): Promise<void> {
    await this.pause();
    if (this.state !== 'paused') return;
    try {
      execFileSync('pkill', ['-KILL', '-u', this.fixture.user]);
    } catch {
      // none was running
    }
  }

  /** Ends sshd and every process of the user, removes the user and its folders. Idempotent. */
  stop(): Promise<void> {
    this.state = 'stopped';
    this.stopping ??= this.fixture.stop();
    return this.stopping;
  }
}
