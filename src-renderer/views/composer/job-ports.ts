import {
  ForwardSyntaxError,
  parseForwards,
  parsePortForward,
} from '../../../src-main/contract/forward';

/** The Ports field read: `job.ports` as a job file writes them, or what is wrong. */
export interface ParsedPorts {
  /** `6006` as a number, `"8888:18888"` as the pair (what JobSpec takes). */
  ports: (number | string)[];
  /** The first entry that is not a port or a pair, or two that would take one port. */
  problem: string | null;
}

/**
 * The composer's Ports field: node ports reached from this machine while the job runs,
 * comma-separated, each `NODE_PORT` or `NODE_PORT:LOCAL_PORT` (`6006, 8888:18888`). What
 * the job file loader refuses is refused here: a port outside 1–65535 (a local port of 0
 * too: a job file names a port or leaves it out), another form, a node port forwarded
 * twice or two onto one local port (`parseForwards`, the loader's own check).
 */
export function parsePortsField(text: string): ParsedPorts {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const ports: (number | string)[] = [];
  for (const entry of entries) {
    // A job file's local port is 1–65535 (`tender forward`'s 0, any free one, is not taken).
    const local = entry.split(':')[1]?.trim();
    if (local !== undefined && local !== '' && !isPort(local))
      return {
        ports,
        problem: `"${entry}": the local port "${local}" is not a port from 1 to 65535 (leave it out for the same port, or a free one)`,
      };
    try {
      const spec = parsePortForward(entry);
      ports.push(
        spec.localPort === null ? spec.remotePort : `${spec.remotePort}:${spec.localPort}`,
      );
    } catch (err) {
      return { ports, problem: reason(err) };
    }
  }
  try {
    parseForwards(ports, []);
  } catch (err) {
    return { ports, problem: reason(err) };
  }
  return { ports, problem: null };
}

/** `job.ports` as the field shows them: `6006, 8888:18888`. */
export function formatPortsField(ports: readonly (number | string)[]): string {
  return ports.map(String).join(', ');
}

/** Digits naming a port from 1 to 65535. */
function isPort(t: string): boolean {
  return /^\d{1,5}$/.test(t) && Number(t) >= 1 && Number(t) <= 65535;
}

/** A ForwardSyntaxError's message is `forward "x": why`; anything else as it says. */
function reason(err: unknown): string {
  if (err instanceof ForwardSyntaxError) return err.message.replace(/^forward /, '');
  return err instanceof Error ? err.message : String(err);
}
