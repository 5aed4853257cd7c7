// The UI in web mode for the Chromium tests: the built renderer served over a core in this
// process (what `tender serve` does, without its process) and a headless Chromium to open it.
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { type ServedCore, startWebServer, type WebServer } from '../../src-main/api/ws-server';
import { launchChromium } from './browser';

/** What `npm run build` leaves for the renderer (`requireBuilt()` checks it is there). */
export const RENDERER_DIR = resolve(import.meta.dirname, '..', '..', 'out', 'renderer');

export interface WebUi {
  server: WebServer;
  browser: Browser;
  /** The browser, then the server; the core stays open (its owner closes it). */
  close(): Promise<void>;
}

export async function openWebUi(core: ServedCore): Promise<WebUi> {
  const server = await startWebServer(core, { rendererDir: RENDERER_DIR });
  const browser = await launchChromium().catch(async (err: unknown) => {
    await server.close();
    throw err;
  });
  return {
    server,
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}
