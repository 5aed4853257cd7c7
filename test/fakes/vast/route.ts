// The shape of an endpoint of the fake: method, path, which API keys may call it, handler.
import type { VastMarket } from './market';
import type { Reply } from './reply';

export type Caller = { kind: 'account' } | { kind: 'instance'; instanceId: number };

export interface Ctx {
  market: VastMarket;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body, or undefined when the request had none. */
  body: unknown;
  caller: Caller;
  accountApiKey: string;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Matched against the path; named groups become `params`. A trailing slash is optional. */
  path: RegExp;
  /** An instance's own key (CONTAINER_API_KEY) may call this for the instance in this param. */
  instanceParam?: string;
  handle(ctx: Ctx): Reply | Promise<Reply>;
}

/** `/api/v0/instances/{id}/` style paths, with or without the trailing slash. */
export function path(template: string): RegExp {
  const source = template
    .replace(/\/$/, '')
    .replace(/\{(\w+)\}/g, (_, name: string) => `(?<${name}>\\d+)`);
  return new RegExp(`^${source}/?$`);
}
