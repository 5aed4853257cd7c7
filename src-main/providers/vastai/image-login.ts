// How Vast.ai takes a private registry's login: `image_login` on create, the arguments of
// `docker login` as one string (vast.py --login; create_instance.yaml):
// "-u USER -p PASSWORD SERVER". Split on spaces by Vast.ai, so no part may hold one.
import { ProviderError } from '../provider';
import type { ResolvedLogin } from '../image-login';

export function vastLoginString(login: ResolvedLogin): string {
  for (const [what, value] of [
    ['username', login.username],
    ['password', login.password],
    ['server', login.server],
  ] as const)
    if (value === '' || /\s/.test(value))
      throw new ProviderError(
        // Names the part, never its value.
        `the image_login ${what} ${value === '' ? 'is empty' : 'holds whitespace'}, which Vast.ai's image_login (docker login arguments split on spaces) cannot carry`,
        { fatal: true, notTheHost: true, hint: 'use a registry token without spaces' },
      );
  return `-u ${login.username} -p ${login.password} ${login.server}`;
}
