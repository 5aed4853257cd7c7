// A private registry's login for the pool's image: who logs in, where the password is read
// from (never the password itself: the pool is kept in the ledger), and the registry — by
// default the one the image name says, by Docker's rule. Pure; the renderer shows the same.
import { z } from 'zod';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A registry as `docker login` names it: a host, and a port when it has one. */
const SERVER = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$/;

/** Docker Hub, where an image name without a registry comes from. */
export const DOCKER_HUB = 'docker.io';

/** `[pool] image_login = { username = "lab-bot", password_env = "GHCR_TOKEN" }`. */
export const ImageLogin = z
  .object({
    username: z
      .string()
      .min(1)
      .max(256)
      .regex(/^\S+$/, { message: 'image_login.username has no spaces' }),
    /** The environment variable (or `--secret` name) that holds the password or token. */
    password_env: z.string().regex(ENV_NAME, {
      message:
        'image_login.password_env names an environment variable that holds the password, e.g. "GHCR_TOKEN"',
    }),
    /** The registry; default: the one the image name says (`registryOf`). */
    server: z
      .string()
      .regex(SERVER, {
        message:
          'image_login.server is a registry host such as "ghcr.io" or "registry.example.com:5000" (no https://, no path)',
      })
      .optional(),
    // A password written here would be kept in the ledger and the job file: refused by name.
    password: z
      .never({
        message:
          'image_login takes no password: name the variable that holds it, password_env = "GHCR_TOKEN", and set that variable (or pass --secret GHCR_TOKEN)',
      })
      .optional(),
  })
  .strict();
export type ImageLogin = z.infer<typeof ImageLogin>;

/**
 * The registry an image is pulled from, by Docker's rule (distribution/reference): the part
 * before the first `/` is a registry when it holds a `.` or a `:`, is `localhost`, or has
 * an upper-case letter; otherwise the image is Docker Hub's. `ghcr.io/lab/train:1` →
 * `ghcr.io`; `lab/train` and `pytorch/pytorch:2.5.1` → `docker.io`.
 */
export function registryOf(image: string): string {
  const name = image.trim();
  const slash = name.indexOf('/');
  if (slash < 0) return DOCKER_HUB;
  const first = name.slice(0, slash);
  const isRegistry = /[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first;
  if (!isRegistry) return DOCKER_HUB;
  // Docker Hub's other names are Docker Hub.
  return first === 'index.docker.io' || first === 'registry-1.docker.io' ? DOCKER_HUB : first;
}

/** The registry a login is for: its `server`, else the image's. */
export function loginServer(login: Pick<ImageLogin, 'server'>, image: string): string {
  return login.server ?? registryOf(image);
}

/** `lab-bot@ghcr.io`: how a login is named in messages and metadata (never its password). */
export function loginName(login: Pick<ImageLogin, 'username' | 'server'>, image: string): string {
  return `${login.username}@${loginServer(login, image)}`;
}

/** What a login that a registry refused is called, naming where the password came from. */
export function refusedLoginText(
  login: Pick<ImageLogin, 'username' | 'server' | 'password_env'>,
  image: string,
): string {
  return `${loginServer(login, image)} refused the login for ${login.username}: check ${login.password_env}`;
}
