// RunPod self-terminate: the pod's own RUNPOD_POD_ID and RUNPOD_API_KEY (a key RunPod scopes
// to that pod), and `podTerminate` for it over GraphQL, repeated until RunPod accepts it or
// says the pod is not there. RunPod answers failures as HTTP 200 with `errors`.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { expandHome, parseEnviron } from './instance-credential';

export const POD_ID_VAR = 'RUNPOD_POD_ID';
export const POD_KEY_VAR = 'RUNPOD_API_KEY';

const FIRST_RETRY_MS = 1_000;
/** The pod bills until it is gone, so the agent never gives up; it only slows down. */
const MAX_RETRY_MS = 60_000;
const REQUEST_TIMEOUT_MS = 30_000;
const BODY_EXCERPT_CHARS = 200;
const TERMINATE = 'mutation Terminate($input: PodTerminateInput!) { podTerminate(input: $input) }';

export interface PodCredential {
  podId: string;
  apiKey: string;
}

/** From `env` when it has both, else from the first of `envFiles` that has both. */
export function findPodCredential(
  env: Record<string, string | undefined>,
  envFiles: readonly string[],
  home: string,
): PodCredential | null {
  const pick = (get: (k: string) => string | undefined): PodCredential | null => {
    const podId = get(POD_ID_VAR)?.trim();
    const apiKey = get(POD_KEY_VAR)?.trim();
    return podId && apiKey ? { podId, apiKey } : null;
  };
  const fromEnv = pick((k) => env[k]);
  if (fromEnv) return fromEnv;
  for (const file of envFiles) {
    let vars: Map<string, string>;
    try {
      vars = parseEnviron(readFileSync(expandHome(file, home), 'utf8'));
    } catch {
      continue;
    }
    const found = pick((k) => vars.get(k));
    if (found) return found;
  }
  return null;
}

export interface TerminateDeps {
  /** Told of every failed attempt; the message never holds the key. */
  onFailure: (message: string, retryInMs: number) => void;
  sleep: (ms: number) => Promise<void>;
}

/** `accepted`: RunPod took the terminate; `gone`: it says there is no such pod. */
export type TerminateOutcome = 'accepted' | 'gone';

export async function terminatePod(
  apiUrl: string,
  credential: PodCredential,
  deps: TerminateDeps,
): Promise<TerminateOutcome> {
  const url = new URL('graphql', apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`);
  const body = JSON.stringify({
    query: TERMINATE,
    variables: { input: { podId: credential.podId } },
  });
  const redact = (text: string) => text.split(credential.apiKey).join('***');
  let retryInMs = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    let failure: string;
    try {
      const answer = await post(url, credential.apiKey, body);
      const said = graphqlErrors(answer.body);
      if (answer.status >= 200 && answer.status < 300 && said === null) return 'accepted';
      if (said !== null && /pod not found|no pod found|pod does not exist/i.test(said))
        return 'gone';
      const excerpt = (said ?? answer.body).trim().slice(0, BODY_EXCERPT_CHARS);
      failure = `HTTP ${answer.status}${excerpt ? `: ${excerpt}` : ''}`;
    } catch (err) {
      failure = (err as Error).message;
    }
    deps.onFailure(
      redact(`podTerminate at ${url.href} failed (attempt ${attempt}): ${failure}`),
      retryInMs,
    );
    await deps.sleep(retryInMs);
    retryInMs = Math.min(retryInMs * 2, MAX_RETRY_MS);
  }
}

/** The messages of a GraphQL `errors` list, joined; null when the body has none. */
function graphqlErrors(text: string): string | null {
  try {
    const json = JSON.parse(text) as { errors?: { message?: unknown }[] };
    if (!Array.isArray(json.errors) || json.errors.length === 0) return null;
    return json.errors.map((e) => String(e?.message ?? '')).join('; ');
  } catch {
    return null;
  }
}

function post(url: URL, apiKey: string, body: string): Promise<{ status: number; body: string }> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${apiKey}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (text.length < BODY_EXCERPT_CHARS * 8) text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}
