// Before a job's first phase: wait until the node's host-setup FIFO is drained (the agent
// refuses `start` before), then fail the job when an entry its declaration made failed.
// An entry someone appended by hand failing is theirs to read, not the job's outcome.
import type {
  HostSetupEntry,
  HostSetupStatus,
  OpName,
  Ops,
} from '../../../src-agent/wire/protocol';

/** An AgentLink's (or AgentClient's) `request`. */
export type AgentRequest = <K extends OpName>(
  op: K,
  params: Ops[K]['params'],
  timeoutMs?: number,
) => Promise<Ops[K]['result']>;

export type HostSetupOutcome =
  | { kind: 'drained' }
  /** e.g. "host_setup[1] `apt-get install -y ffmpeg` exited 100" */
  | { kind: 'failed'; reason: string }
  /** `shouldStop` said so (the job was cancelled meanwhile). */
  | { kind: 'stopped' };

export interface HostSetupWaitOptions {
  request: AgentRequest;
  /** The job's host_setup scripts, in order (the declaration's). */
  declared: readonly string[];
  shouldStop?: () => boolean;
  /** Told once, when the FIFO is first found busy. */
  onWaiting?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** Short at first (most entries are quick), then no more than one status a second or two
 *  for a long install. */
const POLL_BACKOFF_MS = [100, 200, 400, 800, 1_000, 2_000];

export async function waitForHostSetup(o: HostSetupWaitOptions): Promise<HostSetupOutcome> {
  const sleep = o.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  for (let i = 0; ; i++) {
    if (o.shouldStop?.()) return { kind: 'stopped' };
    let status: HostSetupStatus;
    try {
      status = await o.request('host_setup.status', {});
    } catch (err) {
      // An agent older than the FIFO has no host setup to wait for.
      if ((err as { code?: string }).code === 'unknown_op') return { kind: 'drained' };
      throw err;
    }
    if (status.drained) {
      const reason = failedDeclaredEntry(status.entries, o.declared);
      return reason ? { kind: 'failed', reason } : { kind: 'drained' };
    }
    if (i === 0) o.onWaiting?.(waitingLine(status.entries));
    await sleep(POLL_BACKOFF_MS[Math.min(i, POLL_BACKOFF_MS.length - 1)]!);
  }
}

/** The first declared entry that did not exit 0, described; undefined when none. For each
 *  script of the declaration, the latest entry seeded from it at its index counts. */
export function failedDeclaredEntry(
  entries: readonly HostSetupEntry[],
  declared: readonly string[],
): string | undefined {
  for (const [i, script] of declared.entries()) {
    const e = entries
      .filter((x) => x.origin === 'declared' && x.declIndex === i && x.script === script)
      .at(-1);
    if (!e || e.state !== 'exited' || e.code === 0) continue;
    return `host_setup[${e.id}] \`${firstLine(e.script)}\` ${endText(e)}`;
  }
  return undefined;
}

/** "waiting for host setup: host_setup[1] `apt-get …` running, 2 more pending" */
export function waitingLine(entries: readonly HostSetupEntry[]): string {
  const open = entries.filter((e) => e.state !== 'exited');
  const head = open.find((e) => e.state === 'running') ?? open[0];
  if (!head) return 'waiting for host setup';
  const more = open.length > 1 ? `, ${open.length - 1} more pending` : '';
  return `waiting for host setup: host_setup[${head.id}] \`${firstLine(head.script)}\` ${head.state}${more}`;
}

function endText(e: HostSetupEntry): string {
  if (e.signal) return `was killed by ${e.signal}`;
  return e.code === null ? 'ended while no agent watched (exit code unknown)' : `exited ${e.code}`;
}

function firstLine(script: string): string {
  const line = script.split('\n')[0] ?? '';
  return script.includes('\n') ? `${line} …` : line;
}
