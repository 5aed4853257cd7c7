// What a container image is, to the marketplace fakes: the user it runs as, whether it has
// sshd (and starts it itself from $PUBLIC_KEY, as RunPod's own images do), sudo, the
// platforms it is built for, and whether it is minimal (no Node, Python or curl on PATH).
// The fake registry (registry.ts) describes the same images over the OCI distribution API.
import { minimalBin } from '../../helpers/sshd';

export interface FakeImage {
  /** The config's `User`: '' (default) runs as root; a name, or a bare uid. */
  user?: string;
  /** /usr/sbin/sshd is in the image (default true). */
  sshd?: boolean;
  /** The image's own command starts sshd with $PUBLIC_KEY in authorized_keys (RunPod's
   *  images; default: as `sshd`). */
  startsSshd?: boolean;
  /** The user may `sudo -n` (default false). */
  sudo?: boolean;
  /** Default linux/amd64. */
  platforms?: { os: string; architecture: string }[];
  /** Layer sizes in bytes (default one 1 MB layer). */
  layers?: number[];
  /** Sessions find no node, python3 or curl: only a shell and coreutils. */
  minimal?: boolean;
  /** A private image: its registry describes it only to this login (registry.ts). */
  login?: { username: string; password: string };
}

/** An image as the fakes read it: every field given. */
export type ImageSpec = Required<Omit<FakeImage, 'login'>>;

/** The images a fake marketplace knows; an image it does not know runs as root with sshd
 *  that it starts itself (the old behaviour of the fakes). */
export type ImageCatalog = (image: string) => FakeImage | undefined;

export function imageOf(catalog: ImageCatalog | undefined, name: string): ImageSpec {
  const img = catalog?.(name) ?? {};
  const sshd = img.sshd ?? true;
  return {
    user: img.user ?? '',
    sshd,
    startsSshd: img.startsSshd ?? sshd,
    sudo: img.sudo ?? false,
    platforms: img.platforms ?? [{ os: 'linux', architecture: 'amd64' }],
    layers: img.layers ?? [1_000_000],
    minimal: img.minimal ?? false,
  };
}

/** The login name of the image's user ('root' for root). */
export function userName(img: ImageSpec): string {
  const name = img.user.split(':')[0]!;
  return name === '' || name === '0' ? 'root' : name;
}

/** The PATH a node's SSH sessions get: the machine's, or a minimal one. */
export function sessionPath(img: ImageSpec): string | undefined {
  return img.minimal ? minimalBin() : undefined;
}

/** A login name no account has: what an SSH attempt as a user the container does not let in
 *  is mapped to (never `root`: the fixtures' sshd would check root against their key file). */
export function refusedLogin(user: string): string {
  return `nologin-${user.replace(/[^a-z0-9_-]/gi, '')}`.slice(0, 30);
}
