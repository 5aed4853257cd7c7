/** The "Open a port…" form's fields as `forward.open` input: the node port (required) and
 *  the local port (optional: empty is the same port, or a free one when that is taken; 0
 *  is any free one). */
export type OpenPortInput =
  { ok: true; remotePort: number; localPort: number | undefined } | { ok: false; problem: string };

/** A port typed in a field: 1–65535 (0 too with `allowZero`), or NaN. */
export function typedPort(text: string, allowZero = false): number {
  const t = text.trim();
  if (!/^\d{1,5}$/.test(t)) return NaN;
  const n = Number(t);
  return n >= (allowZero ? 0 : 1) && n <= 65535 ? n : NaN;
}

/** The form read, or what to fix first. */
export function readOpenPort(nodePort: string, localPort: string): OpenPortInput {
  const remote = typedPort(nodePort);
  if (nodePort.trim() === '') return { ok: false, problem: 'Give the node port' };
  if (Number.isNaN(remote))
    return { ok: false, problem: 'The node port is a number from 1 to 65535' };
  if (localPort.trim() === '') return { ok: true, remotePort: remote, localPort: undefined };
  const local = typedPort(localPort, true);
  if (Number.isNaN(local))
    return {
      ok: false,
      problem:
        'The local port is a number from 1 to 65535 (empty: the same one or a free one; 0: a free one)',
    };
  return { ok: true, remotePort: remote, localPort: local };
}
