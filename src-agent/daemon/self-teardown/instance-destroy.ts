// Vast.ai self-destroy (DELETE {apiUrl}/api/v0/instances/{id}/) and self-stop (PUT the same
// URL with {"state":"stopped"}, as `vastai stop instance` sends it) with the instance's own
// key, repeated until Vast.ai accepts it (2xx) or says the instance is gone (404).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { InstanceCredential } from './instance-credential';

const FIRST_RETRY_MS = 1_000;
/** The node bills until it is gone, so the agent never gives up; it only slows down. */
const MAX_RETRY_MS = 60_000;
/** A request that hangs (a dead link) is abandoned and tried again. */
const REQUEST_TIMEOUT_MS = 30_000;
const BODY_EXCERPT_CHARS = 200;

export interface HttpAnswer {
  status: number;
  body: string;
}

export interface DestroyDeps {
  /** Told of every failed attempt; the message never holds the key. */
  onFailure: (message: string, retryInMs: number) => void;
  sleep: (ms: number) => Promise<void>;
  send?: (url: URL, apiKey: string, how: InstanceRequest) => Promise<HttpAnswer>;
}

export interface InstanceRequest {
  method: 'DELETE' | 'PUT';
  body: string;
}

const DESTROY: InstanceRequest = { method: 'DELETE', body: '{}' }; // as Vast.ai's own CLI sends it
const STOP: InstanceRequest = { method: 'PUT', body: '{"state":"stopped"}' };

/** `{apiUrl}/api/v0/instances/{id}/`, keeping a path prefix of `apiUrl`. */
export function instanceUrl(apiUrl: string, containerId: string): URL {
  const base = apiUrl.endsWith('/') ? apiUrl : `${apiUrl}/`;
  return new URL(`api/v0/instances/${encodeURIComponent(containerId)}/`, base);
}

/** Resolves with the accepting status (2xx, or 404: already gone) once there is one. */
export function destroyInstance(
  apiUrl: string,
  credential: InstanceCredential,
  deps: DestroyDeps,
): Promise<number> {
  return untilAccepted(apiUrl, credential, deps, DESTROY);
}

/** Asks Vast.ai to stop the instance (its disk stays, billed as storage only); resolves as
 *  `destroyInstance` does. */
export function stopInstance(
  apiUrl: string,
  credential: InstanceCredential,
  deps: DestroyDeps,
): Promise<number> {
  return untilAccepted(apiUrl, credential, deps, STOP);
}

async function untilAccepted(
  apiUrl: string,
  credential: InstanceCredential,
  deps: DestroyDeps,
  how: InstanceRequest,
): Promise<number> {
  const url = instanceUrl(apiUrl, credential.containerId);
  const send = deps.send ?? sendRequest;
  const redact = (text: string) => text.split(credential.apiKey).join('***');
  let retryInMs = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    let failure: string;
    try {
      const answer = await send(url, credential.apiKey, how);
      if ((answer.status >= 200 && answer.status < 300) || answer.status === 404) {
        return answer.status;
      }
      const excerpt = answer.body.trim().slice(0, BODY_EXCERPT_CHARS);
      failure = `HTTP ${answer.status}${excerpt ? `: ${excerpt}` : ''}`;
    } catch (err) {
      failure = (err as Error).message;
    }
    deps.onFailure(
      redact(`${how.method} ${url.href} failed (attempt ${attempt}): ${failure}`),
      retryInMs,
    );
    await deps.sleep(retryInMs);
    retryInMs = Math.min(retryInMs * 2, MAX_RETRY_MS);
  }
}

function sendRequest(url: URL, apiKey: string, how: InstanceRequest): Promise<HttpAnswer> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const { body } = how;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: how.method,
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
          if (text.length < BODY_EXCERPT_CHARS * 4) text += chunk;
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
