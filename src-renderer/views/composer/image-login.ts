// The composer's registry login for a private image: who logs in, and the password either
// typed (sent with the run's start, kept in memory only) or read where Tender runs from a
// named variable. The registry is the image's, by Docker's rule, unless one is given.
import { registryOf, type PoolSpecInput } from '../../../src-main/contract';

export interface ImageLoginDraft {
  username: string;
  /** The variable the password is read from, where Tender runs. */
  passwordEnv: string;
  /** Typed here instead: sent with the start only, never stored or shown again. */
  password: string;
  /** Empty: the image's registry. */
  server: string;
}

export const EMPTY_IMAGE_LOGIN: ImageLoginDraft = {
  username: '',
  passwordEnv: '',
  password: '',
  server: '',
};

/** The name a typed password travels under when no variable is named (the CLI's too). */
export const TYPED_PASSWORD_NAME = 'IMAGE_LOGIN_PASSWORD';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The pool's `image_login` and the start's `secrets`; nothing without a username. */
export function imageLoginOf(
  image: string,
  login: ImageLoginDraft,
): { pool: Pick<PoolSpecInput, 'image_login'>; secrets: Record<string, string> } {
  const username = login.username.trim();
  if (!username || !image.trim()) return { pool: {}, secrets: {} };
  const name = login.passwordEnv.trim() || TYPED_PASSWORD_NAME;
  const server = login.server.trim();
  return {
    pool: { image_login: { username, password_env: name, ...(server ? { server } : {}) } },
    secrets: login.password ? { [name]: login.password } : {},
  };
}

/** What must be fixed in the login, for the person; null when nothing is. */
export function imageLoginProblem(image: string, login: ImageLoginDraft): string | null {
  const username = login.username.trim();
  const name = login.passwordEnv.trim();
  if (!username) return login.password || name ? 'Say who logs in to the registry' : null;
  if (!image.trim()) return 'A registry login is for an image: give the image too';
  if (/\s/.test(username)) return 'The registry username has no spaces';
  if (name && !ENV_NAME.test(name))
    return `"${name}" is not a variable name (letters, digits and _, e.g. GHCR_TOKEN)`;
  if (!name && !login.password)
    return 'Type the registry password, or name the variable Tender reads it from';
  return null;
}

/** Which registry the login is for, said where the person types it. */
export function registryLine(image: string, server: string): string {
  if (server.trim()) return `Logs in to ${server.trim()}.`;
  if (!image.trim()) return 'Logs in to the registry of the image above.';
  return `Logs in to ${registryOf(image)} (from the image's name).`;
}
