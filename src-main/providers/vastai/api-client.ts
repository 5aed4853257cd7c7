import { httpError, isHtml, isRecord, saysInstanceGone, VastApiError } from './errors';
import {
  bodyOf,
  HttpTransport,
  type HttpOptions,
  type VastRequest,
  type VastResponse,
} from './http-transport';

export const DEFAULT_VASTAI_URL = 'https://console.vast.ai';
export type VastApiOptions = HttpOptions;

const MAX_LIST_PAGES = 200; // 25 a page (show_instances_v1.yaml): 5 000 instances

/** Thin HTTP to the Vast.ai REST API (console.vast.ai/api/v0). Each method is one documented
 *  endpoint with its documented shape (see README.md); what the answers mean for a lease is
 *  decided in provider.ts. */
export class VastApiClient {
  private readonly http: HttpTransport;

  constructor(opts: VastApiOptions) {
    this.http = new HttpTransport(opts);
  }

  /** POST /api/v0/bundles/ with a query in the `{"field": {"op": value}}` language. A search
   *  changes nothing, so it is retried like a GET. */
  async searchOffers(query: Record<string, unknown>, signal: AbortSignal): Promise<unknown[]> {
    const res = await this.ok(
      {
        method: 'POST',
        path: '/api/v0/bundles/',
        body: query,
        idempotent: true,
        what: 'search offers',
      },
      signal,
    );
    const offers = isRecord(res.json) ? res.json.offers : undefined;
    if (!Array.isArray(offers)) throw unexpected('search offers', res);
    return offers;
  }

  /** PUT /api/v0/asks/{offer}/: rents the offer. Returns the new instance (contract) id.
   *  Never retried once it may have reached the server (`outcomeUnknown`). */
  async createInstance(
    offerId: string,
    body: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<string> {
    const what = `create instance on offer ${offerId}`;
    const res = await this.ok(
      { method: 'PUT', path: `/api/v0/asks/${seg(offerId)}/`, body, idempotent: false, what },
      signal,
    );
    const json = isRecord(res.json) ? res.json : {};
    if (json.success === false) throw refusal(what, res);
    const id = json.new_contract;
    if (
      (typeof id === 'number' && Number.isInteger(id)) ||
      (typeof id === 'string' && /^\d+$/.test(id))
    )
      return String(id);
    // A 2xx without an id: the instance may exist. Look it up by label, never create again.
    throw new VastApiError(`${what}: HTTP ${res.status} without an instance id`, res.status, null, {
      outcomeUnknown: true,
    });
  }

  /** GET /api/v0/instances/{id}/. Null when Vast.ai says there is no such instance. */
  async showInstance(id: string, signal: AbortSignal): Promise<Record<string, unknown> | null> {
    const what = `show instance ${id}`;
    const res = await this.http.send(
      {
        method: 'GET',
        path: `/api/v0/instances/${seg(id)}/`,
        query: { owner: 'me' },
        idempotent: true,
        what,
      },
      signal,
    );
    if (goneAnswer(res)) return null;
    if (res.status < 200 || res.status > 299) throw failed(what, res);
    if (!isRecord(res.json)) throw unexpected(what, res);
    const inst = res.json.instances;
    if (inst === null || inst === undefined) return null;
    if (Array.isArray(inst)) return inst.find(isRecord) ?? null;
    if (!isRecord(inst)) throw unexpected(what, res);
    return Object.keys(inst).length === 0 ? null : inst;
  }

  /** GET /api/v0/instances/ (all of this account's instances). Follows `next_token` when the
   *  answer is paginated, and refuses a list shorter than the total it announces: a partial
   *  list would hide a lease that bills. */
  async listInstances(signal: AbortSignal): Promise<Record<string, unknown>[]> {
    const all: Record<string, unknown>[] = [];
    const seen = new Set<string>();
    let token: string | null = null;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const query: Record<string, string> = { owner: 'me' };
      if (token) query.after_token = token;
      const res = await this.ok(
        {
          method: 'GET',
          path: '/api/v0/instances/',
          query,
          idempotent: true,
          what: 'list instances',
        },
        signal,
      );
      const json = isRecord(res.json) ? res.json : null;
      if (!json || !Array.isArray(json.instances)) throw unexpected('list instances', res);
      all.push(...json.instances.filter(isRecord));
      const next = typeof json.next_token === 'string' && json.next_token ? json.next_token : null;
      if (!next) {
        const total = json.total_instances ?? (page === 0 ? json.instances_found : undefined);
        if (typeof total === 'number' && total > all.length)
          throw new VastApiError(
            `list instances: Vast.ai announced ${total} instances but returned ${all.length}`,
            res.status,
            null,
          );
        return all;
      }
      if (seen.has(next))
        throw new VastApiError('list instances: the page cursor repeats', null, null);
      seen.add(next);
      token = next;
    }
    throw new VastApiError(`list instances: more than ${MAX_LIST_PAGES} pages`, null, null);
  }

  /** DELETE /api/v0/instances/{id}/. 'gone' when Vast.ai says it does not exist. */
  async destroyInstance(id: string, signal: AbortSignal): Promise<'destroyed' | 'gone'> {
    const what = `destroy instance ${id}`;
    const res = await this.http.send(
      { method: 'DELETE', path: `/api/v0/instances/${seg(id)}/`, body: {}, idempotent: true, what },
      signal,
    );
    if (goneAnswer(res)) return 'gone';
    if (res.status < 200 || res.status > 299) throw failed(what, res);
    if (isRecord(res.json) && res.json.success === false) throw refusal(what, res);
    return 'destroyed';
  }

  /** PUT /api/v0/instances/{id}/ `{state: "running"}` (vast.py start__instance): a stopped
   *  instance runs again once its machine has the GPUs; asking twice is harmless. */
  async startInstance(id: string, signal: AbortSignal): Promise<void> {
    const what = `start instance ${id}`;
    const res = await this.ok(
      {
        method: 'PUT',
        path: `/api/v0/instances/${seg(id)}/`,
        body: { state: 'running' },
        idempotent: true,
        what,
      },
      signal,
    );
    if (isRecord(res.json) && res.json.success === false) throw refusal(what, res);
  }

  /** PUT /api/v0/instances/bid_price/{id}/ `{client_id: "me", price}` (vast.py change__bid;
   *  the API reference's "change bid"). Setting the same price twice is harmless: retried. */
  async changeBid(id: string, price: number, signal: AbortSignal): Promise<void> {
    const what = `change the bid of instance ${id}`;
    const res = await this.ok(
      {
        method: 'PUT',
        path: `/api/v0/instances/bid_price/${seg(id)}/`,
        body: { client_id: 'me', price },
        idempotent: true,
        what,
      },
      signal,
    );
    if (isRecord(res.json) && res.json.success === false) throw refusal(what, res);
  }

  /** GET /api/v0/ssh/: the public keys on the account. */
  async listSshKeys(signal: AbortSignal): Promise<string[]> {
    const what = 'list account ssh keys';
    const res = await this.http.send(
      { method: 'GET', path: '/api/v0/ssh/', idempotent: true, what },
      signal,
    );
    if (res.status === 404) return []; // "No SSH keys found for the user" (show_ssh_keys.yaml)
    if (res.status < 200 || res.status > 299) throw failed(what, res);
    const json = res.json;
    const rows = Array.isArray(json)
      ? json
      : isRecord(json)
        ? ([json.ssh_keys, json.keys, json.results].find(Array.isArray) ?? [])
        : null;
    if (!rows) throw unexpected(what, res);
    return rows.flatMap((r: unknown) => {
      if (typeof r === 'string') return [r];
      if (!isRecord(r) || r.deleted_at) return [];
      const key = r.public_key ?? r.key ?? r.ssh_key;
      return typeof key === 'string' ? [key] : [];
    });
  }

  /** POST /api/v0/ssh/: adds a key to the account (Vast.ai adds account keys to new
   *  instances). Retried freely: a second copy of a key is harmless. */
  async addSshKey(publicKey: string, signal: AbortSignal): Promise<void> {
    const what = 'add ssh key to the account';
    const res = await this.ok(
      {
        method: 'POST',
        path: '/api/v0/ssh/',
        body: { ssh_key: publicKey },
        idempotent: true,
        what,
      },
      signal,
    );
    if (isRecord(res.json) && res.json.success === false) throw refusal(what, res);
  }

  /** POST /api/v0/instances/{id}/ssh/: attaches a key to one instance. */
  async attachSshKey(id: string, publicKey: string, signal: AbortSignal): Promise<void> {
    const what = `attach ssh key to instance ${id}`;
    const res = await this.ok(
      {
        method: 'POST',
        path: `/api/v0/instances/${seg(id)}/ssh/`,
        body: { ssh_key: publicKey },
        idempotent: true,
        what,
      },
      signal,
    );
    if (isRecord(res.json) && res.json.success === false) throw refusal(what, res);
  }

  /** One call through the retry layer; any non-2xx final answer is an error. */
  private async ok(req: VastRequest, signal: AbortSignal): Promise<VastResponse> {
    const res = await this.http.send(req, signal);
    if (res.status < 200 || res.status > 299) throw failed(req.what, res);
    return res;
  }
}

function goneAnswer(res: VastResponse): boolean {
  if (res.status >= 200 && res.status <= 299) {
    // Some endpoints answer 200 {success:false, error:"no_such_instance"}.
    if (!isRecord(res.json) || res.json.success !== false) return false;
  }
  const kind = isHtml(res.text, res.contentType) ? 'html' : isRecord(res.json) ? 'json' : 'text';
  return saysInstanceGone(res.status, bodyOf(res), kind);
}

function failed(what: string, res: VastResponse): VastApiError {
  return httpError(what, res.status, bodyOf(res));
}

/** A 2xx that says `success: false`. */
function refusal(what: string, res: VastResponse): VastApiError {
  const body = bodyOf(res);
  return new VastApiError(
    `${what} refused${body.message ? `: ${body.message}` : ''}`,
    res.status,
    body.code,
  );
}

function unexpected(what: string, res: VastResponse): VastApiError {
  const body = bodyOf(res);
  return new VastApiError(
    `${what}: unexpected answer (HTTP ${res.status}${body.message ? `: ${body.message}` : ''})`,
    res.status,
    body.code,
    { hint: 'is TENDER_VASTAI_URL the Vast.ai API?' },
  );
}

/** A path segment from an id: digits only, so no id can steer a request elsewhere. */
function seg(id: string): string {
  if (!/^\d{1,20}$/.test(id))
    throw new VastApiError(`bad Vast.ai id "${id.slice(0, 40)}"`, null, null, { fatal: true });
  return id;
}
