// Private images for the marketplace fakes: an image that pulls only with its registry's
// login, and Docker's words when the registry refuses (no login, a wrong one, a login for
// another registry). Both marketplaces repeat Docker's error in their status line. The
// server of an image is found by Docker's rule (contract/image-login.ts).
import { registryOf } from '../../src-main/contract/image-login';

export interface RegistryLogin {
  server: string;
  username: string;
  password: string;
}

interface PrivateImage {
  username: string;
  password: string;
}

export class FakeRegistries {
  private readonly images = new Map<string, PrivateImage>();
  /** Every login a pull was tried with (the fake's own record: it holds passwords). */
  readonly tried: { image: string; login: RegistryLogin | null; accepted: boolean }[] = [];

  /** `image` pulls only with this user and password at its registry. */
  addPrivate(image: string, username: string, password: string): void {
    this.images.set(image, { username, password });
  }

  isPrivate(image: string): boolean {
    return this.images.has(image);
  }

  /** Docker's refusal of a pull of `image` with `login`, or null when it goes ahead. */
  refusal(image: string, login: RegistryLogin | null): string | null {
    const owner = this.images.get(image);
    if (!owner) return null;
    const server = registryOf(image);
    const accepted =
      login !== null &&
      login.server === server &&
      login.username === owner.username &&
      login.password === owner.password;
    this.tried.push({ image, login, accepted });
    if (accepted) return null;
    const [repo, tag = 'latest'] = splitTag(image.slice(image.indexOf('/') + 1));
    if (login === null)
      return `Error response from daemon: Head "https://${server}/v2/${repo}/manifests/${tag}": unauthorized`;
    return `Error response from daemon: Get "https://${server}/v2/": unauthorized: incorrect username or password`;
  }
}

function splitTag(path: string): [string, string | undefined] {
  const colon = path.lastIndexOf(':');
  return colon > path.lastIndexOf('/')
    ? [path.slice(0, colon), path.slice(colon + 1)]
    : [path, undefined];
}
