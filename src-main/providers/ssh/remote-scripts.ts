/** Shell run on a host of the ssh provider. Every answer is a marker line carrying a nonce
 *  fresh for each call, so nothing a login shell prints (a noisy .bashrc) can pass for it:
 *  a forged "gone" would mark a live lease destroyed. */

const nodeDir = (label: string) => `"$HOME/.tender/nodes/${label}"`;

/** Stops everything the lease's agent started (its process groups, from pids/), removes the
 *  lease's folder, and keeps the cache (agent, runtime) for the next lease. The groups get
 *  5 s after TERM (looked at every 5 ms: an idle agent exits within a few) before KILL. The
 *  folder is renamed out of the lease's place at once (the lease is gone from there on) and
 *  its files removed behind the answer: a workspace of 100 MB takes ~0.1 s to delete, which
 *  a run's end need not wait for. What a removal cut short left (a reboot) is removed by
 *  the next destroy on the host. */
export function destroyScript(label: string, nonce: string): string {
  return `D=${nodeDir(label)}
if [ -d "$D" ]; then
  for f in "$D"/pids/*; do [ -e "$f" ] && kill -TERM -- "-\${f##*/}" 2>/dev/null; done
  i=0
  while [ $i -lt 1000 ]; do
    alive=0
    for f in "$D"/pids/*; do [ -e "$f" ] && kill -0 -- "-\${f##*/}" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.005; i=$((i+1))
  done
  for f in "$D"/pids/*; do [ -e "$f" ] && kill -KILL -- "-\${f##*/}" 2>/dev/null; done
  s=$(printf %s "$D" | sha256sum | cut -c1-16); rm -f "\${TMPDIR:-/tmp}/tender-agent-$s.sock"
  T="$HOME/.tender/nodes/.removing-${nonce}"
  if mv "$D" "$T" 2>/dev/null; then (rm -rf "$T" "$HOME"/.tender/nodes/.removing-* </dev/null >/dev/null 2>&1 &); else rm -rf "$D"; fi
fi
[ -d "$D" ] && echo TENDER-STILL-THERE-${nonce} || echo TENDER-GONE-${nonce}`;
}

export function isGoneScript(label: string, nonce: string): string {
  return `[ -d ${nodeDir(label)} ] && echo TENDER-PRESENT-${nonce} || echo TENDER-GONE-${nonce}`;
}

export function listScript(prefix: string, nonce: string): string {
  return `echo TENDER-LIST-BEGIN-${nonce}; ls -1 "$HOME/.tender/nodes" 2>/dev/null | grep -e '^${prefix}'; echo TENDER-LIST-END-${nonce}`;
}

export function parseList(stdout: string, nonce: string): string[] {
  const m = new RegExp(`TENDER-LIST-BEGIN-${nonce}\\n([\\s\\S]*?)TENDER-LIST-END-${nonce}`).exec(
    stdout,
  );
  if (!m) throw new Error('the host did not answer the lease listing');
  return m[1]!
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^[a-z0-9][a-z0-9-]*$/.test(l));
}
