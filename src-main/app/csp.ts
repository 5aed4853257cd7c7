import { pageCsp } from '../api/page-csp';
import type { RendererSource } from './trusted-urls';

/** The Content-Security-Policy of the app's own page, sent as a response header: the one
 *  policy of api/page-csp.ts (web mode sends it too). The page talks to the core over IPC,
 *  never the network. Dev only: Vite's inline React-refresh preamble and its HMR WebSocket. */
export function contentSecurityPolicy(source: RendererSource): string {
  if (source.kind !== 'dev') return pageCsp();
  return pageCsp({ inlineScript: true, connect: [source.origin.replace(/^http/, 'ws')] });
}
