// A kept local node in the UI (web mode), tried as a new user would (issue 28): the node
// running its job is not "Dormant" and a free local node does not count as billing; the
// run has a link (#/runs/<id>) that a reload keeps; its outputs download from the browser
// (no "Open folder", which would open on the serving machine); after Tear down all the
// node stays destroyed — no orphan comes back — and its Terminal is not offered, saying why.
// A sweep's outputs are listed per cell. Screenshots: ui-kept-node-*.png.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { CliProcess, killLeftovers, requireBuilt } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';
import { dropFolder, screenshot, watchErrors } from '../helpers/ui';

let browser: Browser;
let serve: CliProcess;
let url: string;
let root: string;
let home: string;

beforeAll(async () => {
  requireBuilt();
  root = mkdtempSync(join(tmpdir(), 'tender-ui-kept-'));
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

const RUN_MS = 60_000;

/** Writes its outputs, then runs until the test has looked at it (`go` is written), then
 *  ends. */
const kept = (go: string) => `[job]
name = "kept"
run = "mkdir -p out && echo hello > out/a.txt && printf '{\\"loss\\": 1}' > out/m.json && while [ ! -e ${go} ]; do sleep 0.2; done && echo finished"
outputs = ["out"]
workspace = { workdir = "." }

[pool]
provider = "local"
`;

const SWEEP = `[job]
name = "cells"
run = "mkdir -p out && echo \\"seed $TENDER_PARAM_SEED\\" > out/seed.txt"
outputs = ["out"]
workspace = { workdir = "." }

[sweep]
SEED = [1, 2]

[pool]
provider = "local"
`;

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  });
  const errors = watchErrors(page);
  await page.goto(url);
  await page.getByTestId('ledger').waitFor();
  return { page, errors };
}

async function compose(page: Page, toml: string, name: string, keep: boolean): Promise<void> {
  const work = join(writeJob(root, name, toml), '..');
  await page.getByTestId('nav-composer').click();
  await dropFolder(page, 'workspace-drop', work);
  await page.getByTestId('load-toml').click();
  await expect.poll(() => page.getByTestId('job-run').inputValue()).toMatch(/mkdir -p out/);
  if (keep) await page.getByTestId('keep-nodes').check();
  await page.getByTestId('run-button').click();
  await page.getByTestId('run-view').waitFor();
  const id = page.getByTestId('run-id');
  await expect.poll(() => id.innerText(), { timeout: 15_000 }).toMatch(/^r-/);
}

const leaseFolders = () => {
  const dir = join(home, 'local', 'leases');
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe('a kept local node in the UI', () => {
  it('labels, link, downloads; after Tear down all no orphan comes back and no Terminal opens', async () => {
    const { page, errors } = await openPage();
    await compose(page, kept(join(root, 'go')), 'kept', true);
    const runId = (await page.getByTestId('run-id').innerText()).trim();

    // The run has an address of its own, and a reload comes back to it (token kept).
    await expect.poll(() => page.url()).toContain(`#/runs/${runId}`);
    expect(page.url()).not.toContain('token=');
    await page.reload();
    await page.getByTestId('run-view').waitFor();
    await expect.poll(() => page.getByTestId('run-id').innerText()).toBe(runId);

    // Running its job, the node says so — here and in the ledger.
    const badge = page.getByTestId('log-pane').first().getByTestId('stage-badge');
    await expect.poll(() => badge.innerText(), { timeout: RUN_MS }).toBe('Running job');
    await page.getByTestId('nav-ledger').click();
    expect(page.url()).toContain('#/ledger');
    const row = page.getByTestId('node-row').first();
    await expect.poll(() => row.getByTestId('stage-badge').innerText()).toBe('Running job');
    // A local node is free: live, not billing.
    await expect
      .poll(() => page.getByTestId('burn-rate').innerText())
      .toMatch(/nothing billing · 1 free node live/);
    await screenshot(page, 'ui-kept-node-ledger');

    // The job ends; the kept node waits, idle.
    await page.goBack();
    await page.getByTestId('run-view').waitFor();
    expect(await page.getByTestId('run-id').innerText()).toBe(runId);
    writeFileSync(join(root, 'go'), '');
    await expect
      .poll(() => page.getByTestId('node-exit').first().innerText(), { timeout: RUN_MS })
      .toBe('exit 0');
    await expect.poll(() => badge.innerText(), { timeout: 15_000 }).toBe('Idle');

    // Outputs download from the browser; nothing opens a folder on the serving machine.
    const outputs = page.getByTestId('outputs');
    await expect.poll(() => outputs.innerText(), { timeout: 30_000 }).toMatch(/m\.json/);
    expect(await outputs.getByRole('button', { name: /Open folder/ }).count()).toBe(0);
    const link = outputs.locator('[data-testid="output-download"][data-path="out/m.json"]');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('m.json');
    expect(readFileSync((await download.path())!, 'utf8')).toBe('{"loss": 1}');
    await screenshot(page, 'ui-kept-node-run');

    // Tear down all: nothing bills, and nothing comes back.
    await page.getByTestId('teardown-all').click();
    await page.getByTestId('teardown-confirm').click();
    await expect
      .poll(() => page.getByTestId('teardown-lease').first().getAttribute('data-state'), {
        timeout: 30_000,
      })
      .toBe('gone');
    await page.keyboard.press('Escape');
    await expect
      .poll(() => page.getByTestId('log-pane').first().getByTestId('stage-badge').innerText(), {
        timeout: 15_000,
      })
      .toBe('Destroyed');
    // Long enough for a reconcile, a link retry and a status look (each ≤ 1 s here).
    await page.waitForTimeout(4_000);
    expect(leaseFolders()).toEqual([]);
    await page.getByTestId('nav-ledger').click();
    await page.getByTestId('ledger').waitFor();
    await page.waitForTimeout(1_500);
    expect(await page.getByTestId('orphan-row').count()).toBe(0);
    expect(await page.getByTestId('burn-rate').innerText()).not.toMatch(/orphan/);
    expect(leaseFolders()).toEqual([]);

    // The destroyed node offers no Terminal, and says why.
    await page.goBack();
    await page.getByTestId('run-view').waitFor();
    const tab = page.getByTestId('log-pane').first().getByTestId('terminal-tab');
    expect(await tab.isDisabled()).toBe(true);
    expect(await tab.getAttribute('title')).toMatch(/destroyed/i);
    expect(leaseFolders()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('lists a sweep’s outputs per cell', async () => {
    const { page, errors } = await openPage();
    await compose(page, SWEEP, 'cells', false);
    const outputs = page.getByTestId('outputs');
    await expect
      .poll(() => outputs.getByTestId('outputs-group').count(), { timeout: RUN_MS })
      .toBe(2);
    const groups = await outputs
      .getByTestId('outputs-group')
      .evaluateAll((gs) => gs.map((g) => g.getAttribute('data-cell-id')));
    expect(groups).toEqual(['j0', 'j1']);
    expect(await outputs.innerText()).not.toMatch(/brought no outputs back/);
    const link = outputs.locator(
      '[data-testid="outputs-group"][data-cell-id="j1"] [data-testid="output-download"]',
    );
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(readFileSync((await download.path())!, 'utf8')).toBe('seed 2\n');
    await screenshot(page, 'ui-kept-node-sweep-outputs');
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
