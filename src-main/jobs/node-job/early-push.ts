import { openSessionOn, pushOnShell } from '../transfers/job-transfers';
import type { NodeShell } from '../../transport/node-shell';
import type { EarlyPush } from './attempt';
import type { JobHost } from './job-host';
import type { PreparedNode } from './node-job-deps';

// A fresh node's first push, begun as soon as its bootstrap has the runtime and the agent
// bundle in place (BootstrapCallbacks.prepared): the push needs only those (its
// `serve-workspace` process is the bundle), not the daemon. It runs on the bootstrap's own
// connection, up already (a second connection's handshake is seven round trips on a far
// link), while the daemon starts, joins and the link comes up, so a run's fixed cost and its
// push overlap instead of adding up. The bootstrap's last few messages queue behind the
// push's data there (at most the channel's window, ~2 MB): nothing waits on them before the
// push ends. Where the connection cannot be shared, the push dials its own. The job's
// materialize step then waits for it; one that failed is pushed again the usual way (a
// delta: what arrived stays). A bootstrap that fails (its lease replaced) or a job that
// stops aborts it: its connection closes and the node side ends.

/** Starts the push to `node`, or null when the job pushes nothing or `node` is not the
 *  lease this job's node is on now. */
export function startEarlyPush(h: JobHost, node: PreparedNode): EarlyPush | null {
  if (!h.deps.job.workspace || node.label !== h.deps.manager.record.label) return null;
  const ac = new AbortController();
  // Taken now: the bootstrap closes its own handle once the agent has joined.
  let shell: NodeShell | null = node.share();
  const run = async () => {
    const plan = await h.deps.workspacePlan();
    if (!plan) return void (await shell?.close());
    const opened = shell ?? (await h.deps.connect(node.endpoint)(ac.signal));
    shell = opened;
    if (ac.signal.aborted) {
      await opened.close();
      throw new Error('the early push was stopped');
    }
    // Eager: the push's first bytes wait in the channel while the node's process starts.
    const { session } = await openSessionOn(opened, node.address, {
      isEager: true,
      command: node.serveCommand,
    });
    // On a guess, nothing is said until the node side runs: a guess that missed (a host
    // without the cached agent) is silent, and the push after the checks speaks.
    const note = node.serveCommand ? heldUntil(session.started, h.note) : h.note;
    const memory = { store: h.deps.manifestMemory, key: node.label };
    await pushOnShell(
      { address: () => node.address, note, now: h.deps.now },
      plan,
      {
        hashCacheFile: h.deps.hashCacheFile,
        linkRatesFile: h.deps.linkRatesFile,
        memory,
        isFreshNode: true, // its bootstrap made the lease's folder just now
      },
      opened,
      session,
    );
  };
  const done = run();
  let hasFailed = false;
  done.catch(() => (hasFailed = true)); // the materialize step reads the outcome
  return {
    label: node.label,
    done,
    hasFailed: () => hasFailed,
    abort: () => {
      ac.abort(new Error('the early push was stopped'));
      void (shell as NodeShell | null)?.close();
    },
  };
}

/** `say`, with each line held until `running` resolves (then said in order); never said if it
 *  does not. */
function heldUntil(running: Promise<void>, say: (line: string) => void): (line: string) => void {
  let held: string[] | null = [];
  void running.then(() => {
    for (const line of held ?? []) say(line);
    held = null;
  });
  return (line) => (held ? held.push(line) : say(line));
}
