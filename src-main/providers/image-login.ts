// What the marketplaces share about a private image's login: the password read (by name,
// from the run's secrets) only when a create sends it, what a lease keeps of the login (its
// name, never the password), and a registry's refusal told as such rather than as a boot
// that timed out. How each marketplace sends it is in its own folder.
import {
  ImageLogin,
  loginName,
  loginServer,
  refusedLoginText,
  type ImageLogin as Login,
} from '../contract/image-login';
import { ProviderError, type CreateLeaseRequest } from './provider';

export interface ResolvedLogin {
  server: string;
  username: string;
  password: string;
}

/** Lease metadata keys: the login by name, and where its password came from. */
const LOGIN_KEY = 'image_login';
const LOGIN_ENV_KEY = 'image_login_env';

/** The login a create sends for `image`, its password read now; null when the pool has
 *  none. A password nobody gave is the run's input missing, named (never a boot failure). */
export function resolveLogin(
  raw: unknown,
  image: string,
  req: Pick<CreateLeaseRequest, 'secret'>,
): ResolvedLogin | null {
  if (raw === undefined) return null;
  const parsed = ImageLogin.safeParse(raw);
  if (!parsed.success)
    throw new ProviderError(`bad image_login: ${parsed.error.issues[0]?.message ?? 'invalid'}`, {
      fatal: true,
      notTheHost: true,
    });
  const login = parsed.data;
  const password = req.secret?.(login.password_env);
  if (password === undefined || password === '')
    throw new ProviderError(
      `image_login for ${loginName(login, image)} reads $${login.password_env}, which is not set where Tender runs`,
      {
        fatal: true,
        notTheHost: true,
        hint: `export ${login.password_env} before starting Tender, or give it with --secret ${login.password_env}=@FILE`,
      },
    );
  return { server: loginServer(login, image), username: login.username, password };
}

/** What a lease keeps of its login: `lab-bot@ghcr.io` and the variable's name. */
export function loginMetadata(raw: unknown, image: string): Record<string, string> {
  const parsed = ImageLogin.safeParse(raw);
  if (!parsed.success) return {};
  return { [LOGIN_KEY]: loginName(parsed.data, image), [LOGIN_ENV_KEY]: parsed.data.password_env };
}

/** Docker's and the registries' words for a pull the registry refused: no login, a wrong
 *  one, or a login without access (docker/distribution errors; RunPod's and Vast.ai's
 *  status lines repeat Docker's). */
const REFUSAL =
  /unauthorized|authentication required|no basic auth credentials|pull access denied|denied: requested access|access to the resource is denied|incorrect username or password|invalid username\/password/i;

/** A registry's refusal in a marketplace's status line, on one line; null when none. */
export function pullRefusalIn(status: unknown): string | null {
  if (typeof status !== 'string' || !REFUSAL.test(status)) return null;
  const flat = status.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/** The error a lease whose image pull was refused fails with: the login named, with the
 *  variable to check, or — without a login — that the image needs one. Fatal, and not the
 *  host's: no other host would pull it either. */
export function pullRefused(metadata: Record<string, string>, detail: string): ProviderError {
  const image = metadata.image ?? 'the image';
  const name = metadata[LOGIN_KEY];
  const env = metadata[LOGIN_ENV_KEY];
  if (name && env) {
    const at = name.lastIndexOf('@');
    const login: Pick<Login, 'username' | 'server' | 'password_env'> = {
      username: name.slice(0, at),
      server: name.slice(at + 1),
      password_env: env,
    };
    return new ProviderError(refusedLoginText(login, image), {
      fatal: true,
      notTheHost: true,
      hint: `the registry said: ${detail}. Check that ${env} holds a token for ${login.username} that may pull ${image}`,
    });
  }
  return new ProviderError(`the registry refused to pull ${image} without a login`, {
    fatal: true,
    notTheHost: true,
    hint: `the registry said: ${detail}. A private image needs image_login = { username = "…", password_env = "…" } in [pool] (or --image-login USER@SERVER); a public one, its exact name`,
  });
}
