// Whether an image can run a Tender node, judged before anything is rented, and the user an
// SSH session logs in as. Tender needs only a POSIX shell in the image (it brings sshd's
// start, the agent and a Node runtime); what it cannot bring is a shell, or a CPU the image
// was built for. Pure; table-tested.
import type { ImageFacts } from './registry-client';

export type ImageVerdict =
  { ok: true; user: ImageUser } | { ok: false; reason: string; hint: string };

/** The image's default user as its config says: root, a named user, or a bare uid. */
export type ImageUser =
  { kind: 'root' } | { kind: 'named'; name: string } | { kind: 'uid'; uid: string };

// Images made to have no shell at all (distroless; `:debug` tags add a busybox shell).
const SHELL_LESS = /(^|\/)distroless\/[^:@]+(?::(?!.*debug)[^@]*)?(@.*)?$/;
const SCRATCH = /^(docker\.io\/)?(library\/)?scratch(:latest)?$/;

/** Docker's architecture names (`uname -m` and Node spell some differently). */
export function dockerArch(arch: string): string {
  const a = arch.toLowerCase();
  if (a === 'x86_64' || a === 'x64') return 'amd64';
  if (a === 'aarch64') return 'arm64';
  return a;
}

export function imageUser(configUser: string): ImageUser {
  const name = configUser.split(':')[0]!.trim();
  if (name === '' || name === 'root' || name === '0') return { kind: 'root' };
  if (/^\d+$/.test(name)) return { kind: 'uid', uid: name };
  return { kind: 'named', name };
}

/** `image` judged from its name and, when the registry described it, its facts, for hosts of
 *  the given architectures (Docker's names; empty: not known). */
export function judgeImage(
  image: string,
  facts: ImageFacts | null,
  hostArchs: readonly string[],
): ImageVerdict {
  const name = image.trim();
  if (SCRATCH.test(name) || SHELL_LESS.test(name))
    return {
      ok: false,
      reason: `image ${name} has no shell: Tender starts its agent with /bin/sh on the node`,
      hint: "use an image with a shell (a distroless image has a :debug variant with busybox), e.g. one of `tender offers`' well-known images",
    };
  if (!facts) return { ok: true, user: { kind: 'root' } };
  const linux = facts.platforms.filter((p) => p.os === 'linux');
  if (facts.platforms.length > 0 && linux.length === 0)
    return {
      ok: false,
      reason: `image ${name} is built for ${[...new Set(facts.platforms.map((p) => p.os))].join(', ')}, not Linux`,
      hint: 'rented GPUs run Linux containers: use a Linux image',
    };
  const archs = hostArchs.map(dockerArch);
  const built = [...new Set(linux.map((p) => dockerArch(p.architecture)))];
  if (archs.length > 0 && built.length > 0 && !built.some((a) => archs.includes(a)))
    return {
      ok: false,
      reason: `image ${name} is built for ${built.join(', ')} only; the hosts are ${[...new Set(archs)].join(', ')} (${facts.source} lists its platforms)`,
      hint: `use a variant built for ${archs[0]} (a multi-platform tag, or the image's ${archs[0]} tag)`,
    };
  return { ok: true, user: imageUser(facts.user) };
}

/** "3.2 GB to pull (ghcr.io)", or why the size is not known. */
export function sizeText(facts: ImageFacts | null, unknown?: string): string {
  if (!facts || facts.compressedBytes === null)
    return `size unknown${unknown ? ` (${unknown})` : ''}`;
  return `${formatBytes(facts.compressedBytes)} compressed (${facts.source})`;
}

export function formatBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${Math.round(n / 1e6)} MB`;
  return `${Math.max(1, Math.round(n / 1e3))} kB`;
}
