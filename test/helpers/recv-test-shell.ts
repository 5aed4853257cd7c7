import { mkdirSync } from 'node:fs';
import { PassThrough, Transform } from 'node:stream';
import { LocalShell, localNodeEnv } from '../../src-main/transport/local-shell';
import type { ExecChannel, NodeShell } from '../../src-main/transport/node-shell';

/** A LocalShell for workspace-push tests: it records which agent commands ran, counts the
 *  bytes sent into `recv-workspace`, and lets a test act just before that command starts
 *  (`beforeRecv`) or damage its input on the way (`tamper`). */
export class RecvTestShell implements NodeShell {
  readonly inner: LocalShell;
  readonly description: string;
  recvBytes = 0;
  /** e.g. `workspace-manifest`, `recv-workspace`, `recv-workspace --in-place`. */
  commands: string[] = [];
  beforeRecv: (() => Promise<void> | void) | undefined;
  tamper: (() => Transform) | undefined;

  /** `env`: more variables for the node's commands (e.g. `TENDER_AGENT_TAR=0`). */
  constructor(dir: string, env: Record<string, string> = {}) {
    mkdirSync(dir, { recursive: true }); // the node's folder (a LocalShell never makes it)
    this.inner = new LocalShell(dir, localNodeEnv(env));
    this.description = this.inner.description;
  }

  exec(command: string): ExecChannel {
    const words = command.split(' ');
    this.commands.push(
      `${words[2] ?? command}${words.at(-1) === '--in-place' ? ' --in-place' : ''}`,
    );
    if (!command.includes(' recv-workspace ')) return this.inner.exec(command);
    const input = new PassThrough();
    const before = this.beforeRecv;
    this.beforeRecv = undefined;
    const tamper = this.tamper?.();
    const counting = new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        this.recvBytes += chunk.length;
        done(null, chunk);
      },
    });
    const ready = (async () => {
      await before?.();
      const ch = this.inner.exec(command);
      (tamper ? input.pipe(tamper) : input).pipe(counting).pipe(ch.stdin);
      return ch;
    })();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    void ready.then((c) => {
      c.stdout.pipe(stdout);
      c.stderr.pipe(stderr);
    });
    return {
      stdin: input,
      stdout,
      stderr,
      exit: ready.then((c) => c.exit),
      close: () => void ready.then((c) => c.close()),
    };
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
