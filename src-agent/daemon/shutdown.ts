// The `shutdown` op and SIGTERM: cancel the phases and a running host-setup entry, wait
// for them, flush the log, remove the socket, agent.json and the lock. The caller then
// ends the process.
import { rmSync } from 'node:fs';
import type { Server } from 'node:net';
import { join } from 'node:path';
import type { DaemonContext } from './context';
import { stopListening } from './socket/server';

/** Beyond the grace, how long to wait for SIGKILLed processes to be reaped. */
const REAP_MS = 3_000;

let running: Promise<void> | undefined;

export function shutdownDaemon(
  ctx: DaemonContext,
  deps: { server: Server; lock: { release: () => void }; graceMs: number },
): Promise<void> {
  running ??= (async () => {
    ctx.isShuttingDown = true;
    ctx.log.append('agent', 'info', 'agent shutting down');
    await ctx.supervisor.cancel(undefined, deps.graceMs);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([ctx.supervisor.whenAllExited(), ctx.hostSetup.cancel(deps.graceMs)]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, deps.graceMs + REAP_MS))),
    ]);
    clearTimeout(timer);
    stopListening(deps.server, ctx.paths.socket);
    await ctx.log.close();
    rmSync(ctx.paths.agentJson, { force: true });
    rmSync(join(ctx.paths.pids, String(process.pid)), { force: true });
    deps.lock.release();
  })();
  return running;
}
