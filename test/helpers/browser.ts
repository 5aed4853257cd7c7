import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (the only browser this machine has; `.ci/run` installs it). */
export const CHROMIUM_PATH = process.env.TENDER_CHROMIUM ?? '/usr/bin/chromium';

/** Headless Chromium for the UI tests and benches: no sandbox (CI runs as root), no GPU,
 *  nothing that reaches the network on its own. `extraArgs`: more switches (e.g. a
 *  `--host-resolver-rules` that points a name at 127.0.0.1). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      ...extraArgs,
    ],
  });
}
