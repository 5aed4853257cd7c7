import { parseArgs } from 'node:util';
import {
  ForwardSyntaxError,
  notebookUrl,
  parseForwards,
  type PortForwardSpec,
  type RemoteForwardSpec,
} from '../../contract/forward';
import type { ForwardView, RunView } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { TenderError } from '../../base/tender-error';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { dim, info } from '../output';

export const FORWARD_USAGE =
  'tender forward <runId> [--node N] <port[:local]>... [--remote <nodePort:host:port>]...';

const ENDED = new Set(['completed', 'failed', 'cancelled']);
const REACHABLE = new Set(['handed_off', 'dormant']);
const POLL_MS = 1_000;

/** Forwards node ports to this machine's 127.0.0.1 (and, with --remote, node ports back to
 *  services here) until Ctrl-C or the run's end (docs/forwards.md). */
export async function forwardCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { node: { type: 'string' }, remote: { type: 'string', multiple: true } },
  });
  const [runId, ...ports] = positionals;
  const usage = `usage: ${FORWARD_USAGE}`;
  if (!runId) throw new TenderError('bad_input', 'expected a run id and ports to forward', usage);
  const specs = parseSpecs(ports, values.remote ?? [], usage);
  // Read-only: forwards change nothing in the ledger, and a forward kept open for hours must
  // not hold the writer's lock that `tender cancel` or `logs --follow` need meanwhile.
  const core = TenderCore.openReadonly(ctx.coreOptions);
  if (!core)
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  try {
    const node = await waitForNode(core, runId, values.node);
    for (const spec of specs.local) {
      const { remotePort, localPort } = spec;
      const v = await call(core, 'forward.open', {
        runId,
        nodeName: node.logicalId,
        remotePort,
        ...(localPort === null ? {} : { localPort }),
      });
      process.stdout.write(`${forwardLine(v, node.logicalId)}\n`);
    }
    for (const spec of specs.remote) {
      const v = await call(core, 'forward.openRemote', {
        runId,
        nodeName: node.logicalId,
        ...spec,
      });
      process.stdout.write(`${forwardLine(v, node.logicalId)}\n`);
    }
    info(dim('listening on 127.0.0.1 only; Ctrl-C to stop'));
    const ended = await untilStopped(core, runId);
    if (ended) info(`run ${runId} ended (${ended}): forwards closed`);
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

/** Every forward named on the command line, or bad_input with the form. */
function parseSpecs(
  ports: string[],
  remote: string[],
  usage: string,
): { local: PortForwardSpec[]; remote: RemoteForwardSpec[] } {
  let specs: ReturnType<typeof parseForwards>;
  try {
    specs = parseForwards(ports, remote);
  } catch (err) {
    if (err instanceof ForwardSyntaxError) throw new TenderError('bad_input', err.message, usage);
    throw err;
  }
  if (specs.local.length + specs.remote.length === 0)
    throw new TenderError('bad_input', 'name at least one port to forward', usage);
  return specs;
}

/** The run's node once its agent has joined (waiting while it boots); bad input for an
 *  unknown node or a run that has ended. */
async function waitForNode(
  core: TenderCore,
  runId: string,
  node: string | undefined,
): Promise<RunView['nodes'][number]> {
  const wanted =
    node === undefined
      ? undefined
      : /^\d+$/.test(node)
        ? `node-${node}`
        : node.replace(/^.*\//, '');
  let isWaiting = false;
  for (;;) {
    const run = await call(core, 'run.get', { runId });
    if (ENDED.has(run.status))
      throw new TenderError(
        'bad_input',
        `run ${runId} has ended (${run.status}): there is no job to forward to`,
        'forward a port of a run that is running (`tender status` lists them)',
      );
    const n = wanted === undefined ? run.nodes[0] : run.nodes.find((x) => x.logicalId === wanted);
    if (!n)
      throw new TenderError(
        'bad_input',
        `run ${runId} has no node ${node ?? ''}`.trim(),
        `nodes: ${run.nodes.map((x) => x.logicalId).join(', ') || 'none'}`,
      );
    if (REACHABLE.has(n.stage)) return n;
    if (!isWaiting) info(`waiting for ${n.logicalId} of ${runId} to join (${n.stage})…`);
    isWaiting = true;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Waits for Ctrl-C (null) or the run's end (its status); prints each token a job prints
 *  (the first look at once: one printed before the forward opened). */
function untilStopped(core: TenderCore, runId: string): Promise<string | null> {
  const told = new Set<string>();
  const tell = (views: ForwardView[]) => {
    for (const v of views) {
      const { token, url } = v;
      if (!token || !url || told.has(`${v.remotePort}:${token}`)) continue;
      told.add(`${v.remotePort}:${token}`);
      process.stdout.write(`${tokenLine(url, token)}\n`);
    }
  };
  return new Promise((resolve) => {
    let isDone = false;
    const finish = (how: string | null) => {
      if (isDone) return;
      isDone = true;
      clearInterval(timer);
      off();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(how);
    };
    const onSignal = () => finish(null);
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    const off = core.bus.on('forward.changed', (e) => e.runId === runId && tell(e.forwards));
    const poll = async () => {
      try {
        tell(await call(core, 'forward.list', { runId }));
        const run = await call(core, 'run.get', { runId });
        if (ENDED.has(run.status)) finish(run.status);
      } catch {
        // one failed look is no reason to stop forwarding
      }
    };
    const timer = setInterval(() => void poll(), POLL_MS);
    void poll();
  });
}

/** `forwarding http://127.0.0.1:16006 → node-0:6006 (TensorBoard)`. */
export function forwardLine(v: ForwardView, logicalId: string): string {
  if (v.direction === 'remote')
    return `forwarding ${logicalId}:${v.remotePort} → ${v.host}:${v.localPort} here (reverse: the node's 127.0.0.1:${v.remotePort})`;
  return `forwarding ${v.url} → ${logicalId}:${v.remotePort} (${v.label})`;
}

/** `  token 3f…: http://127.0.0.1:8888/?token=3f…` (the link that logs in: the one the
 *  app's "Open notebook" opens). */
function tokenLine(url: string, token: string): string {
  return `  token ${token}: ${notebookUrl(url, token)}`;
}
