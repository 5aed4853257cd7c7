/** Messages of the web-mode WebSocket (runtime-free: the renderer imports it). */
export interface WsRequest {
  id: number;
  /** The session token, on every message: a page that never saw it can do nothing. */
  token: string;
  command: string;
  input: unknown;
}

export type WsServerMessage =
  | { id: number; result: unknown } // a Result<T>: { ok, value } or { ok: false, error }
  | { event: string; payload: unknown };

export const WS_PATH = '/ws';
