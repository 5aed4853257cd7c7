// The HTTP face of the fake on 127.0.0.1: one `POST /graphql`, the key a call carries
// (account, a pod's own, none), wire faults (429 storms), the operation's fields resolved
// against the pod store, and a record of every call — 401s and 429s included.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFakeHttpServer } from '../fake-http-server';
import { takeOne, takeRateLimit, type FaultState } from './faults';
import { argsOf, GraphqlError, parseOperation, project, type Field } from './graphql';
import { gpuTypeView, type GpuType } from './gpu-types';
import { podView, type PodRecord, type PodStore } from './pods';
import type { FakeRegistries } from '../private-registry';
import { resolveRegistryAuthMutation, type RegistryAuthStore } from './registry-auths';

export type KeyUsed = 'account' | 'pod' | 'invalid' | 'none';

export interface CallRecord {
  seq: number;
  at: number;
  /** The top-level fields asked for: `podFindAndDeployOnDemand`, `myself`… */
  fields: string[];
  kind: 'query' | 'mutation' | null;
  variables: Record<string, unknown>;
  status: number;
  key: KeyUsed;
  /** The pod whose RUNPOD_API_KEY was used, for `key: 'pod'`. */
  keyPodId: string | null;
  /** GraphQL error messages answered (HTTP 200). */
  errors: string[];
  /** A handler's unexpected exception, for debugging a failing test. */
  error?: string;
}

export interface ServerDeps {
  apiKey: string;
  store: PodStore;
  gpuTypes: GpuType[];
  faults: FaultState;
  now: () => number;
  auths: RegistryAuthStore;
  registries: FakeRegistries;
}

interface Caller {
  key: KeyUsed;
  pod: PodRecord | null;
}

export async function startServer(
  deps: ServerDeps,
): Promise<{ url: string; calls: CallRecord[]; close(): Promise<void> }> {
  const calls: CallRecord[] = [];
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.runpod');
    const raw = await readBody(req);
    const caller = classifyKey(req, url, deps);
    const call: CallRecord = {
      seq: calls.length + 1,
      at: deps.now(),
      fields: [],
      kind: null,
      variables: {},
      status: 0,
      key: caller.key,
      keyPodId: caller.pod?.id ?? null,
      errors: [],
    };
    calls.push(call);
    const reply = await answer(call, req, url, raw, caller).catch((err: unknown) => {
      call.error = (err as Error).stack ?? String(err);
      return { status: 500, body: 'Internal Server Error', type: 'text/plain' } as Reply;
    });
    call.status = reply.status;
    res.writeHead(reply.status, { 'Content-Type': reply.type, ...reply.headers });
    res.end(reply.body);
  }

  async function answer(
    call: CallRecord,
    req: IncomingMessage,
    url: URL,
    raw: string,
    caller: Caller,
  ): Promise<Reply> {
    if (url.pathname !== '/graphql') return { status: 404, body: 'Not Found', type: 'text/plain' };
    if (req.method !== 'POST')
      return { status: 405, body: 'Method Not Allowed', type: 'text/plain' };
    if (takeRateLimit(deps.faults))
      return {
        status: 429,
        body: 'Too Many Requests',
        type: 'text/plain',
        headers:
          deps.faults.retryAfterS !== null
            ? { 'Retry-After': String(deps.faults.retryAfterS) }
            : {},
      };
    if (caller.key === 'none' || caller.key === 'invalid')
      return json(401, { errors: [{ message: 'Unauthorized' }] });
    let body: { query?: unknown; variables?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return json(400, { errors: [{ message: 'POST body sent invalid JSON.' }] });
    }
    if (typeof body.query !== 'string')
      return json(400, { errors: [{ message: 'Must provide query string.' }] });
    const variables = (
      body.variables && typeof body.variables === 'object' ? body.variables : {}
    ) as Record<string, unknown>;
    call.variables = variables;
    let op;
    try {
      op = parseOperation(body.query);
    } catch (err) {
      return gqlErrors(call, [err as GraphqlError], null);
    }
    call.kind = op.kind;
    call.fields = op.fields.map((f) => f.name);
    if (caller.key === 'pod' && !podKeyMayAsk(caller.pod!, op.fields, variables))
      return json(403, {
        errors: [{ message: `Forbidden: this API key is scoped to pod ${caller.pod!.id}` }],
      });
    if (
      op.kind === 'mutation' &&
      call.fields.includes('podTerminate') &&
      takeOne(deps.faults.terminateFailures)
    )
      return {
        status: deps.faults.terminateFailures.status,
        body: 'Internal Server Error',
        type: 'text/plain',
      };
    await deps.store.sync();
    const data: Record<string, unknown> = {};
    const errors: GraphqlError[] = [];
    let failAfter: number | null = null;
    for (const f of op.fields) {
      try {
        const { value, type } = await resolve(op.kind, f, variables, caller);
        data[f.alias ?? f.name] = project(value, f.selection, type, variables);
        if (
          op.kind === 'mutation' &&
          /^pod(FindAndDeployOnDemand|RentInterruptable)$/.test(f.name) &&
          takeOne(deps.faults.createFailures)
        )
          failAfter = deps.faults.createFailures.status;
      } catch (err) {
        if (!(err instanceof GraphqlError)) throw err;
        (err as GraphqlError & { path?: string[] }).path = [f.alias ?? f.name];
        data[f.alias ?? f.name] = null;
        errors.push(err);
      }
    }
    // The pod was made (and bills); the answer is lost on the way back.
    if (failAfter !== null)
      return { status: failAfter, body: 'Internal Server Error', type: 'text/plain' };
    if (errors.length > 0) return gqlErrors(call, errors, data);
    return json(200, { data });
  }

  async function resolve(
    kind: 'query' | 'mutation',
    f: Field,
    variables: Record<string, unknown>,
    caller: Caller,
  ): Promise<{ value: unknown; type: string }> {
    const args = argsOf(f, variables);
    const input = (args.input ?? {}) as Record<string, unknown>;
    const now = deps.now();
    if (kind === 'query') {
      switch (f.name) {
        case 'gpuTypes': {
          const id = (input as { id?: unknown }).id;
          const types = deps.gpuTypes.filter((t) => id === undefined || t.id === id);
          return { value: types.map(gpuTypeView), type: 'GpuType' };
        }
        case 'pod': {
          const pod = deps.store.find(input.podId);
          return {
            value: pod && pod.desiredStatus !== 'TERMINATED' ? podView(pod, now) : null,
            type: 'Pod',
          };
        }
        case 'myself':
          return {
            value: {
              id: 'user_fake',
              email: 'fake@example.com',
              pods: deps.store.live().map((p) => podView(p, now)),
              containerRegistryCreds: deps.auths.view(),
            },
            type: 'User',
          };
        default:
          throw new GraphqlError(
            `Cannot query field "${f.name}" on type "Query".`,
            'GRAPHQL_VALIDATION_FAILED',
          );
      }
    }
    const auth = resolveRegistryAuthMutation(f.name, args, f.selection !== null, deps.auths);
    if (auth) return auth;
    switch (f.name) {
      case 'podFindAndDeployOnDemand':
      case 'podRentInterruptable': {
        const login = deps.auths.loginFor(input.containerRegistryAuthId, String(input.imageName));
        const pod = await deps.store.create(input, f.name === 'podRentInterruptable');
        pod.registryAuthId = login ? (input.containerRegistryAuthId as string) : null;
        // A private image the registry refuses never boots; Docker's words show as the
        // pod's status (private-registry.ts).
        const refused = deps.registries.refusal(pod.imageName, login);
        if (refused !== null) {
          pod.pullError = refused;
          pod.bootAt = null;
        }
        return { value: podView(pod, now), type: 'Pod' };
      }
      case 'podTerminate':
        if (f.selection)
          throw new GraphqlError(
            'Field "podTerminate" must not have a selection since type "Void" has no subfields.',
            'GRAPHQL_VALIDATION_FAILED',
          );
        deps.store.terminate(input.podId, caller.key === 'pod' ? 'pod' : 'account');
        return { value: null, type: 'Void' };
      case 'podStop':
        return { value: podView(await deps.store.exit(input.podId, 'stop'), now), type: 'Pod' };
      case 'podResume':
        return { value: podView(deps.store.resume(input.podId), now), type: 'Pod' };
      default:
        throw new GraphqlError(
          `Cannot query field "${f.name}" on type "Mutation".`,
          'GRAPHQL_VALIDATION_FAILED',
        );
    }
  }

  const server = await startFakeHttpServer(handle);
  return { url: server.url, calls, close: () => server.close() };
}

interface Reply {
  status: number;
  body: string;
  type: string;
  headers?: Record<string, string>;
}

function json(status: number, value: unknown): Reply {
  return { status, body: JSON.stringify(value), type: 'application/json' };
}

function gqlErrors(
  call: CallRecord,
  errors: GraphqlError[],
  data: Record<string, unknown> | null,
): Reply {
  call.errors = errors.map((e) => e.message);
  return json(200, {
    errors: errors.map((e) => ({
      message: e.message,
      ...((e as { path?: string[] }).path ? { path: (e as { path?: string[] }).path } : {}),
      ...(e.code ? { extensions: { code: e.code } } : {}),
    })),
    data,
  });
}

/** The pod-scoped key may ask about its own pod and terminate it, nothing else. */
function podKeyMayAsk(
  pod: PodRecord,
  fields: Field[],
  variables: Record<string, unknown>,
): boolean {
  return fields.every((f) => {
    if (f.name !== 'pod' && f.name !== 'podTerminate') return false;
    const input = argsOf(f, variables).input as { podId?: unknown } | undefined;
    return input?.podId === pod.id;
  });
}

/** `Authorization: Bearer <key>` or `?api_key=<key>` (the docs' curl). A pod's key counts
 *  until the pod is terminated. */
function classifyKey(req: IncomingMessage, url: URL, deps: ServerDeps): Caller {
  const header = req.headers.authorization ?? '';
  const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
  const key = bearer ?? url.searchParams.get('api_key') ?? '';
  if (!key) return { key: 'none', pod: null };
  if (key === deps.apiKey) return { key: 'account', pod: null };
  const pod = deps.store.pods.find((p) => p.apiKey === key && p.desiredStatus !== 'TERMINATED');
  return pod ? { key: 'pod', pod } : { key: 'invalid', pod: null };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
