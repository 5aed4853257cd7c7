// A private image on RunPod: its login is a container registry auth saved for the lease,
// named with the lease's label (written to the ledger before the create), passed as
// `containerRegistryAuthId` on pod create, and deleted with the pod. A crash between the
// save and the pod, or a delete that failed, leaves an auth whose label no live lease
// holds: the reconciler's sweep (`removeLeftovers`) deletes it.
import type { ResolvedLogin } from '../image-login';
import type { DestroyHandle, LeaseFacts } from '../provider';
import type { RunpodApiClient } from './api-client';
import { RunpodApiError } from './errors';

type AuthApi = Pick<
  RunpodApiClient,
  'saveRegistryAuth' | 'deleteRegistryAuth' | 'listRegistryAuths'
>;

/** The destroy handle's key for the lease's auth. */
export const AUTH_KEY = 'registryAuthId';

/** Saves the lease's login as an auth named `label` (one left by an earlier try of this
 *  label is deleted first: it may hold another password); its id. */
export async function saveLeaseAuth(
  api: AuthApi,
  label: string,
  login: ResolvedLogin,
  signal: AbortSignal,
): Promise<string> {
  for (const old of await api.listRegistryAuths(signal))
    if (old.name === label) await api.deleteRegistryAuth(old.id, signal);
  return api.saveRegistryAuth(
    { name: label, username: login.username, password: login.password },
    signal,
  );
}

/** The auth named `label`, if any (a lease adopted by its label). */
export async function authOfLabel(
  api: AuthApi,
  label: string,
  signal: AbortSignal,
): Promise<string | null> {
  return (await api.listRegistryAuths(signal)).find((a) => a.name === label)?.id ?? null;
}

/** The lease with its auth in its destroy handle, so its destroy deletes it too. */
export function withAuth(lease: LeaseFacts, authId: string | null): LeaseFacts {
  if (!authId) return lease;
  return { ...lease, destroyHandle: { ...lease.destroyHandle, [AUTH_KEY]: authId } };
}

/** Deletes the handle's auth after its pod: an auth still in use (the pod not gone yet) is
 *  left for the next try — `isAuthGone` keeps the destroy unconfirmed until then. */
export async function deleteHandleAuth(
  api: AuthApi,
  handle: DestroyHandle,
  signal: AbortSignal,
): Promise<void> {
  const id = handle[AUTH_KEY];
  if (!id) return;
  try {
    await api.deleteRegistryAuth(id, signal);
  } catch (err) {
    if (!(err instanceof RunpodApiError && /in use/i.test(err.message))) throw err;
  }
}

export async function isAuthGone(
  api: AuthApi,
  handle: DestroyHandle,
  signal: AbortSignal,
): Promise<boolean> {
  const id = handle[AUTH_KEY];
  return !id || !(await api.listRegistryAuths(signal)).some((a) => a.id === id);
}

/** Deletes this install's auths (named under `prefix`) that no lease needs: `keep(label)`
 *  (a pod listed with it, or the ledger holding it live) says no. Returns what went. */
export async function removeLeftoverAuths(
  api: AuthApi,
  prefix: string,
  keep: (label: string) => boolean,
  signal: AbortSignal,
): Promise<string[]> {
  const removed: string[] = [];
  for (const auth of await api.listRegistryAuths(signal)) {
    if (!auth.name.startsWith(prefix) || keep(auth.name)) continue;
    await api.deleteRegistryAuth(auth.id, signal);
    removed.push(`RunPod registry login ${auth.name} (${auth.id})`);
  }
  return removed;
}
