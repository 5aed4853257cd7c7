// A file Tender caches on a node (the agent bundle, the Node runtime) is code that runs as
// the user: it is run only when its sha256 is the one Tender pushed. The hash is computed
// on the node with whatever tool is there, in the same round trip that asks whether the
// file exists; a node with none of them gets the file pushed again.

/** Shell commands that print `<64 hex> …` for a file, tried in order. */
const HASHERS = ['sha256sum', 'shasum -a 256', 'openssl dgst -sha256 -r'];

/** Tender's folders and files on a node are the user's alone (docs/agent-protocol.md). */
export const PRIVATE_UMASK = 'umask 077';

export type CachedFile =
  | { state: 'missing' }
  /** No sha256sum, shasum or openssl on the node: the file cannot be trusted. */
  | { state: 'unverifiable' }
  | { state: 'present'; sha256: string };

/** One command: `<marker> missing`, `<marker> <sha256>`, or `<marker> ` when no tool
 *  hashed it. `fileWord` is a shell word (it may expand `$HOME`). */
export function cachedFileScript(fileWord: string, marker: string): string {
  return (
    `f=${fileWord}; if [ -s "$f" ]; then ${HASH_OF_F}; echo "${marker} \${h%% *}"; ` +
    `else echo "${marker} missing"; fi`
  );
}

/** Sets `h` to `<64 hex> …` for the file `$f` (empty when no tool hashed it). */
export const HASH_OF_F = `h=$( { ${HASHERS.map((h) => `${h} "$f"`).join(' || ')}; } 2>/dev/null | head -n 1)`;

export function parseCachedFile(stdout: string, marker: string): CachedFile {
  const line = stdout.split('\n').find((l) => l.startsWith(`${marker} `));
  const word = line?.slice(marker.length + 1).trim() ?? 'missing';
  if (word === 'missing') return { state: 'missing' };
  const hex = /^\*?([0-9a-f]{64})$/i.exec(word);
  return hex ? { state: 'present', sha256: hex[1]!.toLowerCase() } : { state: 'unverifiable' };
}

/** What to tell the user about a cached file that will not run as it is; null when it
 *  matches `want`. */
export function cachedFileProblem(what: string, got: CachedFile, want: string): string | null {
  switch (got.state) {
    case 'missing':
      return `${what} is not cached on the node yet`;
    case 'unverifiable':
      return `no sha256sum, shasum or openssl on the node to check the cached ${what}: pushing it again`;
    case 'present':
      return got.sha256 === want
        ? null
        : `the cached ${what} does not match its sha256 (${got.sha256.slice(0, 16)}…, want ${want.slice(0, 16)}…): replacing it, never running it`;
  }
}
