// The UI in Chromium against `tender serve` (web mode): compose a run from a dropped
// workspace, run it on the local provider, watch its log lines, see its outputs, append host
// setup to the kept node, tear down all, and find the ledger saying destroyed. Screenshots of each view land in
// test/e2e/screenshots/.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { CliProcess, EXAMPLES, killLeftovers, requireBuilt } from '../helpers/cli';
import { dropFolder, screenshot, watchErrors } from '../helpers/ui';

let browser: Browser;
let serve: CliProcess;
let url: string;
let root: string;
let home: string;

beforeAll(async () => {
  requireBuilt();
  root = mkdtempSync(join(tmpdir(), 'tender-ui-local-'));
  home = join(root, 'home');
  serve = new CliProcess(['serve'], { home });
  await serve.waitFor('stdout', /^Tender web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/);
  url = /^Tender web UI: (\S+)/.exec(serve.stdout)![1]!;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  killLeftovers(home);
  rmSync(root, { recursive: true, force: true });
});

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(url);
  await page.getByTestId('ledger').waitFor();
  return { page, errors };
}

describe('the UI in web mode, local provider', () => {
  it('composes from a dropped workspace, runs, streams logs, lists outputs, tears down all', async () => {
    const work = join(root, 'hello');
    cpSync(join(EXAMPLES, 'hello'), work, { recursive: true });
    const { page, errors } = await openPage();
    // The session token left the address bar as soon as the page read it.
    expect(page.url()).not.toContain('token=');
    await screenshot(page, 'ledger-empty');

    await page.getByTestId('nav-composer').click();
    await page.getByTestId('composer').waitFor();
    await screenshot(page, 'composer-empty');
    await dropFolder(page, 'workspace-drop', work);
    await expect.poll(() => page.getByTestId('workdir-input').inputValue()).toBe(work);
    // The folder has a tender.toml: loading it fills the composer.
    await page.getByTestId('load-toml').click();
    await expect.poll(() => page.getByTestId('job-run').inputValue()).toBe('sh run.sh');
    const preview = page.getByTestId('workspace-preview');
    await expect.poll(() => preview.innerText()).toMatch(/data/);
    await expect.poll(() => preview.innerText()).toMatch(/last\.ckpt/);
    // Keep the node after the job so there is a lease left to tear down.
    await page.getByTestId('keep-nodes').check();
    await screenshot(page, 'composer');

    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();
    // Started from the app: the run says so (an agent's would say mcp:<client>).
    await expect.poll(() => page.getByTestId('run-origin').innerText()).toBe('app');
    const pane = page.getByTestId('log-pane').first();
    await expect
      .poll(() => pane.locator('.xterm-rows').innerText(), { timeout: 60_000 })
      .toMatch(/step|loss/i);
    await expect
      .poll(() => page.getByTestId('node-exit').first().innerText(), { timeout: 60_000 })
      .toMatch(/exit 0|exited 0|completed/i);
    const outputs = page.getByTestId('outputs');
    await expect.poll(() => outputs.innerText(), { timeout: 30_000 }).toMatch(/metrics\.json/);
    expect(await outputs.innerText()).toMatch(/loss\.csv/);
    await screenshot(page, 'run');

    // The kept node is live: host setup appended from its pane runs there, and shows.
    const field = page.getByTestId('host-setup-field').first();
    await field.locator('input').fill('echo appended from the UI');
    await field.getByRole('button', { name: 'Append host setup' }).click();
    await expect
      .poll(() => field.getByTestId('host-setup-result').innerText(), { timeout: 30_000 })
      .toBe('host_setup[1] exited 0');
    await expect
      .poll(() => pane.locator('.xterm-rows').innerText(), { timeout: 30_000 })
      .toMatch(/appended from the UI/);

    // The kept node bills (locally: free) and is live: Tear down all.
    await page.getByTestId('teardown-all').click();
    await page.getByTestId('teardown-dialog').waitFor();
    await screenshot(page, 'teardown-confirm');
    await page.getByTestId('teardown-confirm').click();
    await expect
      .poll(() => page.getByTestId('teardown-lease').first().getAttribute('data-state'), {
        timeout: 30_000,
      })
      .toBe('gone');
    await screenshot(page, 'teardown-done');
    await page.keyboard.press('Escape');

    await page.getByTestId('nav-ledger').click();
    const row = page.getByTestId('node-row').first();
    await expect.poll(() => row.getAttribute('data-stage'), { timeout: 30_000 }).toBe('destroyed');
    expect(await page.getByTestId('run-group-origin').first().innerText()).toMatch(/^\s*by app$/);
    await screenshot(page, 'ledger');

    await page.getByTestId('nav-settings').click();
    await screenshot(page, 'settings');
    expect(errors).toEqual([]);
    await page.close();
  });
});
