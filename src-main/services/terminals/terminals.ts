import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as pty from 'node-pty';
import type { EventBus } from '../../base/event-bus';
import type { NodeStage } from '../../contract';
import type { NodeRecord } from '../../ledger/node-record';
import { localNodeEnv } from '../../transport/local-shell';
import type { SshShell } from '../../transport/ssh-shell';
import { sshConnector, type SshConnectContext } from '../../nodes/ssh-connect';
import { TenderError } from '../../base/tender-error';

/** A terminal's node answers within this, or the open fails naming why. */
const TERMINAL_CONNECT_MS = 60_000;

/** A shell opens on a node whose agent is up and whose lease is there. */
function isTerminalStage(stage: NodeStage): boolean {
  return stage === 'dormant' || stage === 'handed_off';
}

/** One interactive terminal: bytes in, bytes out (events), resize, close. */
interface Session {
  write(data: Buffer): Promise<void>;
  resize(cols: number, rows: number): void;
  close(): void;
}

export interface TerminalSize {
  cols: number;
  rows: number;
  term: string;
}

/** Interactive shells on nodes for the UI's xterm and `tender ssh`: a pty in the node's
 *  workspace (local nodes: node-pty; remote nodes: a pty channel over SSH). Output travels as
 *  base64 `terminal.output` events; input resolves once the node has accepted it. */
export class Terminals {
  private readonly sessions = new Map<string, Session>();
  /** Which node each open terminal is on. */
  private readonly nodeOf = new Map<string, string>();

  constructor(
    private readonly bus: EventBus,
    private readonly ssh: SshConnectContext,
  ) {
    // A node that leaves the running stages (destroyed, Tear down all) takes its shells with
    // it: a local one would otherwise go on in a deleted folder.
    bus.on('node.changed', (node) => {
      if (!isTerminalStage(node.stage)) this.closeOn(node.id);
    });
  }

  private closeOn(nodeId: string): void {
    for (const [id, n] of [...this.nodeOf]) if (n === nodeId) this.close(id);
  }

  private sshTo(rec: NodeRecord): (signal: AbortSignal) => Promise<SshShell> {
    if (rec.connection?.kind !== 'ssh') throw new TenderError('internal', 'not an ssh node');
    return sshConnector(rec.connection, this.ssh, TERMINAL_CONNECT_MS);
  }

  async open(rec: NodeRecord, size: TerminalSize): Promise<string> {
    const ep = rec.connection;
    if (!ep || !isTerminalStage(rec.stage)) {
      throw new TenderError(
        'conflict',
        `node ${rec.logicalId} is ${rec.stage}: a terminal needs a running node`,
      );
    }
    const id = `t-${randomBytes(6).toString('hex')}`;
    const output = (data: Buffer) =>
      this.bus.emit('terminal.output', { terminalId: id, data: data.toString('base64') });
    const exit = (code: number | null) => {
      this.sessions.delete(id);
      this.nodeOf.delete(id);
      this.bus.emit('terminal.exit', { terminalId: id, code });
    };
    const session =
      ep.kind === 'local'
        ? openLocal(
            join(ep.dir, existsSync(join(ep.dir, 'workspace')) ? 'workspace' : ''),
            size,
            output,
            exit,
          )
        : await openRemote(
            await this.sshTo(rec)(AbortSignal.timeout(TERMINAL_CONNECT_MS)),
            rec,
            size,
            output,
            exit,
          );
    this.sessions.set(id, session);
    this.nodeOf.set(id, rec.id);
    return id;
  }

  /** A terminal is open on the node: someone is using it (it is not idle). */
  isOpenOn(nodeId: string): boolean {
    for (const n of this.nodeOf.values()) if (n === nodeId) return true;
    return false;
  }

  async input(id: string, data: Buffer): Promise<void> {
    await this.get(id).write(data);
  }

  resize(id: string, cols: number, rows: number): void {
    this.get(id).resize(cols, rows);
  }

  close(id: string): void {
    this.sessions.get(id)?.close();
    this.sessions.delete(id);
    this.nodeOf.delete(id);
  }

  closeAll(): void {
    for (const s of this.sessions.values()) s.close();
    this.sessions.clear();
  }

  private get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new TenderError('not_found', `no open terminal ${id}`);
    return s;
  }
}

function openLocal(
  cwd: string,
  size: TerminalSize,
  output: (d: Buffer) => void,
  exit: (c: number | null) => void,
): Session {
  const p = pty.spawn(
    process.env.SHELL && existsSync(process.env.SHELL) ? process.env.SHELL : 'bash',
    ['-l'],
    {
      name: size.term,
      cols: size.cols,
      rows: size.rows,
      cwd,
      env: localNodeEnv({ TERM: size.term }) as Record<string, string>,
      encoding: null,
    },
  );
  p.onData((d) => output(Buffer.isBuffer(d) ? d : Buffer.from(d)));
  p.onExit(({ exitCode }) => exit(exitCode));
  return {
    write: async (data) => void p.write(data.toString('utf8')),
    resize: (c, r) => p.resize(c, r),
    close: () => p.kill(),
  };
}

/** Printed as a terminal opens: the job's environment is one command away (the agent
 *  writes it without secrets, src-agent/daemon/environment/shell-env.ts). */
const LOAD_ENV_HINT =
  "'tender: `source ~/.tender/env` loads the job environment (secrets left out)'";

async function openRemote(
  shell: SshShell,
  rec: NodeRecord,
  size: TerminalSize,
  output: (d: Buffer) => void,
  exit: (c: number | null) => void,
): Promise<Session> {
  const dir = rec.agent?.address.dirWord ?? '"$HOME"';
  const ch = await shell.openPty({
    ...size,
    command:
      `cd ${dir}/workspace 2>/dev/null || cd ${dir}; ` +
      `[ -f ${dir}/env.sh ] && echo ${LOAD_ENV_HINT}; exec "\${SHELL:-bash}" -l`,
  });
  ch.stdout.on('data', (d: Buffer) => output(d));
  void ch.exit.then((code) => {
    exit(code);
    void shell.close();
  });
  return {
    write: (data) => ch.write(data),
    resize: (c, r) => ch.resize(c, r),
    close: () => {
      ch.close();
      void shell.close();
    },
  };
}
