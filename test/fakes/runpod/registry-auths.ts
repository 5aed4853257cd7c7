// RunPod's container registry auths (runpod-python api/mutations/container_register_auth.py;
// docs api-reference container-registry-auths): `saveRegistryAuth(input: {name, username,
// password}) { id name }`, `deleteRegistryAuth(registryAuthId)`, and the account's list,
// `myself { containerRegistryCreds { id name } }`. Names are unique in an account; an auth
// a live pod uses cannot be deleted (dstack's stale-auth sweep stops at the first it cannot
// delete) [the exact message is a guess]. A pod created with `containerRegistryAuthId`
// pulls its image with that login, at the image's registry (an auth names no server).
import { randomBytes } from 'node:crypto';
import { registryOf } from '../../../src-main/contract/image-login';
import type { RegistryLogin } from '../private-registry';
import { GraphqlError } from './graphql';

export interface RegistryAuthRecord {
  id: string;
  name: string;
  username: string;
  /** The fake's own record: what it was sent. */
  password: string;
  createdAt: number;
  deletedAt: number | null;
}

export class RegistryAuthStore {
  readonly auths: RegistryAuthRecord[] = [];

  constructor(
    private readonly now: () => number,
    /** Whether a live pod was created with this auth. */
    private readonly isInUse: (id: string) => boolean,
  ) {}

  live(): RegistryAuthRecord[] {
    return this.auths.filter((a) => a.deletedAt === null);
  }

  save(input: Record<string, unknown>): { id: string; name: string } {
    const { name, username, password } = input;
    for (const [k, v] of Object.entries({ name, username, password }))
      if (typeof v !== 'string' || v === '')
        throw new GraphqlError(`${k} is required`, 'BAD_USER_INPUT');
    if (this.live().some((a) => a.name === name))
      throw new GraphqlError(`A registry auth named ${String(name)} already exists`);
    const auth: RegistryAuthRecord = {
      id: randomBytes(10).toString('hex'),
      name: name as string,
      username: username as string,
      password: password as string,
      createdAt: this.now(),
      deletedAt: null,
    };
    this.auths.push(auth);
    return { id: auth.id, name: auth.name };
  }

  delete(id: unknown): void {
    const auth = this.live().find((a) => a.id === id);
    if (!auth) throw new GraphqlError('Registry auth not found');
    if (this.isInUse(auth.id))
      throw new GraphqlError('Registry auth is in use by a pod and cannot be deleted');
    auth.deletedAt = this.now();
  }

  /** The login a pod created with `id` pulls `image` with; null without one. */
  loginFor(id: unknown, image: string): RegistryLogin | null {
    if (id === undefined || id === null || id === '') return null;
    const auth = this.live().find((a) => a.id === id);
    if (!auth) throw new GraphqlError(`Registry auth ${String(id)} not found`, 'BAD_USER_INPUT');
    return { server: registryOf(image), username: auth.username, password: auth.password };
  }

  view(): { id: string; name: string }[] {
    return this.live().map((a) => ({ id: a.id, name: a.name }));
  }
}

/** The registry-auth mutations; null for any other field. */
export function resolveRegistryAuthMutation(
  name: string,
  args: Record<string, unknown>,
  hasSelection: boolean,
  auths: RegistryAuthStore,
): { value: unknown; type: string } | null {
  switch (name) {
    case 'saveRegistryAuth':
      return {
        value: auths.save((args.input ?? {}) as Record<string, unknown>),
        type: 'ContainerRegistryAuth',
      };
    case 'deleteRegistryAuth':
      if (hasSelection)
        throw new GraphqlError(
          'Field "deleteRegistryAuth" must not have a selection since type "Boolean" has no subfields.',
          'GRAPHQL_VALIDATION_FAILED',
        );
      auths.delete(args.registryAuthId);
      return { value: true, type: 'Boolean' };
    default:
      return null;
  }
}
