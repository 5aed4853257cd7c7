// The Offers view in Chromium against web mode with all three marketplaces configured from
// the environment (TENDER_<X>_URL / _API_KEY, as a person would) against local fakes: one
// table across Vast.ai, RunPod and Lambda Cloud; a marketplace that refuses its key is
// named above the table while the others' rows stay; and offers of two marketplaces are
// refused as one pool, inline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer, type WebServer } from '../../src-main/api/ws-server';
import { TenderCore } from '../../src-main/core/tender-core';
import { startFakeLambda, type FakeLambda } from '../fakes/lambda';
import { startFakeRunpod, type FakeRunpod } from '../fakes/runpod';
import { startFakeVast, type FakeVast } from '../fakes/vast';
import { launchChromium } from '../helpers/browser';
import { requireBuilt } from '../helpers/cli';
import { screenshot, watchErrors } from '../helpers/ui';
import { TEST_TIMING } from '../helpers/vast-core';
import { RENDERER_DIR } from '../helpers/web-ui';

let browser: Browser;
let vast: FakeVast;
let runpod: FakeRunpod;
let lambda: FakeLambda;
const opened: { core: TenderCore; server: WebServer; root: string }[] = [];

beforeAll(async () => {
  requireBuilt();
  vast = await startFakeVast({
    offers: [
      { gpu_name: 'RTX 4090', dph_base: 0.34, geolocation: 'Sweden, SE' },
      { gpu_name: 'RTX 3090', dph_base: 0.19, geolocation: 'Poland, PL' },
    ],
  });
  runpod = await startFakeRunpod({
    gpuTypes: [
      { id: 'NVIDIA GeForce RTX 4090', memoryInGb: 24, secure: { price: 0.44, spotPrice: 0.22 } },
      { id: 'NVIDIA A100 80GB PCIe', displayName: 'A100 PCIe', memoryInGb: 80 },
    ],
  });
  lambda = await startFakeLambda();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  for (const o of opened) {
    await o.server.close();
    await o.core.close();
    rmSync(o.root, { recursive: true, force: true });
  }
  await Promise.all([vast?.stop(), runpod?.stop(), lambda?.stop()]);
});

/** Web mode on a fresh data folder whose marketplaces are set from the environment. */
async function openWeb(keys: { lambda?: string } = {}): Promise<WebServer> {
  const root = mkdtempSync(join(tmpdir(), 'tender-across-'));
  const core = TenderCore.open({
    home: join(root, 'home'),
    env: {
      ...process.env,
      TENDER_VASTAI_URL: vast.url,
      TENDER_VASTAI_API_KEY: vast.apiKey,
      TENDER_RUNPOD_URL: runpod.url,
      TENDER_RUNPOD_API_KEY: runpod.apiKey,
      TENDER_LAMBDA_URL: lambda.url,
      TENDER_LAMBDA_API_KEY: keys.lambda ?? lambda.apiKey,
    },
    timing: TEST_TIMING,
    reconcile: false,
  });
  const server = await startWebServer(core, { rendererDir: RENDERER_DIR });
  opened.push({ core, server, root });
  return server;
}

async function openOffers(server: WebServer): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = watchErrors(page);
  await page.goto(server.url);
  await page.getByTestId('nav-offers').click();
  await page.getByTestId('offer-sources').waitFor({ timeout: 30_000 });
  return { page, errors };
}

const providersShown = async (page: Page) =>
  new Set(
    await page
      .getByTestId('offer-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-provider'))),
  );

describe('the Offers view across marketplaces', () => {
  it('shows Vast.ai, RunPod and Lambda Cloud side by side, sortable by provider', async () => {
    const server = await openWeb();
    const { page, errors } = await openOffers(server);
    await expect
      .poll(() => providersShown(page), { timeout: 30_000 })
      .toEqual(new Set(['vastai', 'runpod', 'lambda']));
    const sources = await page.getByTestId('offer-sources').innerText();
    expect(sources).toMatch(/Vast\.ai 2/);
    expect(sources).toMatch(/RunPod 2/);
    expect(sources).toMatch(/Lambda Cloud \d+/);
    // Cheapest first across all of them: the Vast RTX 3090 leads.
    const first = page.getByTestId('offer-row').first();
    expect(await first.getAttribute('data-provider')).toBe('vastai');
    expect(await first.innerText()).toMatch(/RTX 3090/);
    // The Provider column sorts like the others.
    await page.getByTestId('offer-sort-provider').click();
    expect(await page.getByTestId('offer-row').first().getAttribute('data-provider')).toBe(
      'lambda',
    );
    await page.getByTestId('offer-sort-price').click();
    // Lambda sells no interruptible machines; RunPod's bid price shows.
    const lambdaBid = page
      .locator('[data-testid="offer-row"][data-provider="lambda"]')
      .first()
      .getByTestId('offer-bid-price');
    expect(await lambdaBid.getAttribute('title')).toMatch(/Lambda Cloud sells no interruptible/);
    await screenshot(page, 'ui-offers-across');

    // Picking offers of two marketplaces is refused, inline; one marketplace is used.
    await page
      .locator('[data-testid="offer-row"][data-provider="vastai"]')
      .first()
      .getByTestId('offer-pick')
      .check();
    await page
      .locator('[data-testid="offer-row"][data-provider="runpod"]')
      .first()
      .getByTestId('offer-pick')
      .check();
    await expect
      .poll(() => page.getByTestId('pool-problem').innerText())
      .toMatch(/come from Vast\.ai and RunPod/);
    expect(await page.getByTestId('use-offers').isDisabled()).toBe(true);
    await screenshot(page, 'ui-offers-across-mixed');
    await page
      .locator('[data-testid="offer-row"][data-provider="vastai"]')
      .first()
      .getByTestId('offer-pick')
      .uncheck();
    await page.getByTestId('use-offers').click();
    await page.getByTestId('composer').waitFor();
    expect(await page.getByTestId('provider-runpod').getAttribute('aria-checked')).toBe('true');
    // The count stayed at 2 (two were picked): the second node is RunPod's next offer.
    await expect.poll(() => page.getByTestId('offer-chip').count()).toBe(2);
    for (const chip of await page.getByTestId('offer-chip').allInnerTexts())
      expect(chip).toMatch(/RunPod/);

    // A pool of several marketplaces takes no picked offers; its placement line says what
    // it does (run.plan answers for the chain).
    await page.getByTestId('job-name').fill('across');
    await page.getByTestId('job-run').fill('echo hi');
    await page.getByTestId('provider-chain').click();
    await page.getByTestId('run-button').click(); // refused here, with the fix
    await expect
      .poll(() => page.locator('.field-error').allInnerTexts())
      .toContainEqual(expect.stringMatching(/belong to RunPod alone/));
    while ((await page.getByTestId('offer-chip').count()) > 0)
      await page.getByTestId('offer-chip').first().getByRole('button').click();
    await expect
      .poll(() => page.getByTestId('placement-route').innerText(), { timeout: 15_000 })
      .toBe('Tries RunPod, then Vast.ai if RunPod has no capacity');
    await screenshot(page, 'ui-offers-across-composer');
    await page.getByTestId('provider-cheapest').click();
    await expect
      .poll(() => page.getByTestId('placement-route').innerText(), { timeout: 15_000 })
      .toBe('Rents the cheapest matching offer across Vast.ai, RunPod and Lambda Cloud');

    // Unticking a marketplace searches the others only.
    await page.getByTestId('nav-offers').click();
    await page.getByTestId('offer-market-runpod').uncheck();
    await expect
      .poll(() => providersShown(page), { timeout: 30_000 })
      .toEqual(new Set(['vastai', 'lambda']));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a marketplace that refuses its key is named; the others’ rows still show', async () => {
    const server = await openWeb({ lambda: 'secret_wrong_key' });
    const { page, errors } = await openOffers(server);
    await expect
      .poll(() => providersShown(page), { timeout: 30_000 })
      .toEqual(new Set(['vastai', 'runpod']));
    const failing = page.getByTestId('offer-source-lambda');
    expect(await failing.getAttribute('data-state')).toBe('error');
    expect(await failing.innerText()).toMatch(/^Lambda Cloud: /);
    expect(await failing.innerText()).toMatch(/key/i);
    expect(await page.getByTestId('offer-source-vastai').innerText()).toMatch(/Vast\.ai 2/);
    expect(await page.getByTestId('offers-error').count()).toBe(0);
    await screenshot(page, 'ui-offers-across-one-failing');
    // Settings: one key row per marketplace, each saying where its key comes from (never it).
    await page.getByTestId('nav-settings').click();
    for (const m of ['vastai', 'runpod', 'lambda']) {
      const row = page.getByTestId(`api-key-${m}`);
      await row.waitFor();
      expect(await row.getByTestId('api-key-state').getAttribute('data-set')).toBe('true');
      expect(await row.getByTestId('api-key-source').innerText()).toMatch(/TENDER_/);
    }
    expect(await page.getByTestId('settings-api-key').innerText()).not.toContain(
      'secret_wrong_key',
    );
    await page.getByTestId('settings-api-key').scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-keys');
    expect(errors).toEqual([]);
    await page.close();
  });
});
