// Port forwards (docs/forwards.md): what `[job] ports` / `remote_ports` and `tender forward`
// say, read into specs; the names a forward shows under; the Jupyter token a job prints.
// Pure: the job-file check, the CLI, the service and the renderer all read them the same way.

/** A port on the node reached from this machine's 127.0.0.1 (`6006` or `"6006:16006"`). */
export interface PortForwardSpec {
  /** The port on the node (its 127.0.0.1). */
  remotePort: number;
  /** The port here; null: the same as `remotePort`, or a free one when that is taken.
   *  0: any free port. */
  localPort: number | null;
}

/** A port on the node's 127.0.0.1 that reaches `host:localPort` from this machine
 *  (`"5000:localhost:5000"`). */
export interface RemoteForwardSpec {
  nodePort: number;
  host: string;
  localPort: number;
}

export class ForwardSyntaxError extends Error {
  constructor(
    readonly text: string,
    why: string,
  ) {
    super(`forward ${JSON.stringify(text)}: ${why}`);
    this.name = 'ForwardSyntaxError';
  }
}

const LOCAL_FORM = 'write NODE_PORT or NODE_PORT:LOCAL_PORT, e.g. 6006 or "6006:16006"';
const REMOTE_FORM = 'write NODE_PORT:HOST:PORT, e.g. "5000:localhost:5000"';
const DIGITS = /^\d{1,5}$/;
// A host name, an IPv4 address, or an IPv6 address in brackets.
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])$/;

/** A port from 1 to 65535 (0 too where `allowZero`), or a ForwardSyntaxError saying why. */
function port(text: string, raw: string | number, what: string, allowZero = false): number {
  const n = typeof raw === 'number' ? raw : DIGITS.test(raw.trim()) ? Number(raw.trim()) : NaN;
  const min = allowZero ? 0 : 1;
  if (!Number.isInteger(n) || n < min || n > 65535)
    throw new ForwardSyntaxError(
      text,
      `${what} ${JSON.stringify(String(raw))} is not a port from ${min} to 65535`,
    );
  return n;
}

/** Reads one entry of `ports` (a number, or `"remote:local"`); a local port of 0 is any
 *  free port. Throws ForwardSyntaxError naming what is wrong and the form. */
export function parsePortForward(value: number | string): PortForwardSpec {
  const text = String(value);
  if (typeof value === 'number')
    return { remotePort: port(text, value, 'the node port'), localPort: null };
  const parts = value.trim().split(':');
  if (parts.length > 2 || parts.some((p) => p.trim() === ''))
    throw new ForwardSyntaxError(text, LOCAL_FORM);
  const remotePort = port(text, parts[0]!, 'the node port');
  const localPort = parts.length === 2 ? port(text, parts[1]!, 'the local port', true) : null;
  return { remotePort, localPort };
}

/** Reads one entry of `remote_ports` (`"nodePort:host:port"`; `"nodePort:port"` and
 *  `"port"` mean host localhost). Throws ForwardSyntaxError naming the form. */
export function parseRemoteForward(value: string): RemoteForwardSpec {
  const text = String(value);
  const m = /^\s*(\d+)(?::(.+?))?(?::(\d+))?\s*$/.exec(text);
  if (!m) throw new ForwardSyntaxError(text, REMOTE_FORM);
  const nodePort = port(text, m[1]!, 'the node port');
  // "5000:5001": no host given (the middle group took the port).
  const [hostText, portText] = m[3] === undefined ? [undefined, m[2]] : [m[2], m[3]];
  if (hostText !== undefined && !HOST.test(hostText))
    throw new ForwardSyntaxError(
      text,
      `"${hostText}" is not a host name or address; ${REMOTE_FORM}`,
    );
  const localPort = portText === undefined ? nodePort : port(text, portText, 'the local port');
  return { nodePort, host: hostText?.replace(/^\[(.*)\]$/, '$1') ?? 'localhost', localPort };
}

/** Every forward of a job (`ports`, `remote_ports`), checked together: the first bad entry,
 *  or two forwards that would take one port, is a ForwardSyntaxError. */
export function parseForwards(
  ports: readonly (number | string)[],
  remotePorts: readonly string[],
): { local: PortForwardSpec[]; remote: RemoteForwardSpec[] } {
  const local = ports.map(parsePortForward);
  const remote = remotePorts.map(parseRemoteForward);
  const seen = new Map<string, string>();
  const take = (key: string, text: string, what: string) => {
    const before = seen.get(key);
    if (before !== undefined)
      throw new ForwardSyntaxError(text, `${what} twice (also by ${JSON.stringify(before)})`);
    seen.set(key, text);
  };
  local.forEach((f, i) => {
    const text = String(ports[i]);
    take(`forward:${f.remotePort}`, text, `node port ${f.remotePort} is forwarded`);
    const here = f.localPort ?? f.remotePort;
    if (here !== 0) take(`here:${here}`, text, `local port ${here} is taken`);
  });
  remote.forEach((f, i) =>
    take(`listen:${f.nodePort}`, remotePorts[i]!, `node port ${f.nodePort} is listened on`),
  );
  return { local, remote };
}

/** `6006` as written in `tender forward` and `ports`, back from a spec. */
export function formatPortForward(f: PortForwardSpec): string {
  return f.localPort === null ? String(f.remotePort) : `${f.remotePort}:${f.localPort}`;
}

/** What a forward is called where it is shown: the two well-known ports by name. */
export function forwardLabel(remotePort: number): string {
  if (remotePort === 6006) return 'TensorBoard';
  if (remotePort === 8888) return 'Jupyter';
  return `port ${remotePort}`;
}

/** The address a local forward is reached at (always 127.0.0.1: nothing else listens). */
export function forwardUrl(localPort: number): string {
  return `http://127.0.0.1:${localPort}`;
}

/** The link that logs in to a notebook behind a forward (`http://127.0.0.1:18888/?token=…`):
 *  the forward's address with the token the job printed, replacing one already on it.
 *  What "Open notebook" opens and `tender forward` prints. */
export function notebookUrl(address: string, token: string): string {
  const u = new URL(address);
  u.searchParams.set('token', token);
  return u.toString();
}

/** The fix for a local port another program holds: the next port up. */
export function portInUseMessage(remotePort: number, localPort: number): string {
  const next = localPort < 65535 ? localPort + 1 : 1024;
  return `local port ${localPort} is in use: pick another (${remotePort}:${next})`;
}

// `token=<hex>` as a word of its own or a URL's query (not `xsrf_token=`).
const TOKEN = /(?<![A-Za-z0-9_])token=([0-9a-f]{16,})/g;
// The port of the URL a token is part of: `http://127.0.0.1:8888/lab?`.
const URL_PORT = /:\/\/[^\s/?#]*:(\d{1,5})(?:[/?#]|$)/;

/** A token a job printed (`?token=<hex>`, 16 hex digits or more), with the port of the URL
 *  it is part of (`http://127.0.0.1:8888/lab?token=…`), null when it names none. */
export interface TokenSighting {
  port: number | null;
  token: string;
}

/** The tokens in one log line, in order. */
export function tokensIn(line: string): TokenSighting[] {
  if (!line.includes('token=')) return [];
  const out: TokenSighting[] = [];
  for (const m of line.matchAll(TOKEN)) {
    const before = line.slice(0, m.index);
    const word = before.slice(before.search(/\S*$/)); // the URL the token ends, if any
    const port = URL_PORT.exec(word);
    out.push({ port: port ? Number(port[1]) : null, token: m[1]! });
  }
  return out;
}

/** The last token in `lines`, or null. With `port`: the last one for a forward of that
 *  node port — on a URL naming that port, or naming none. A server that restarted printed
 *  a new one: the last wins. */
export function lastToken(lines: Iterable<string>, port?: number): string | null {
  let last: string | null = null;
  for (const line of lines)
    for (const t of tokensIn(line))
      if (port === undefined || t.port === null || t.port === port) last = t.token;
  return last;
}
