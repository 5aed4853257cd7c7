// The UI in Chromium against web mode with a faithful Vast.ai fake (real sshd nodes): search
// offers, rent 2, run, watch both panes, tear down all, and the fake has zero live instances.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt } from '../helpers/cli';
import { screenshot, watchErrors } from '../helpers/ui';
import { vastSetup } from '../helpers/vast-core';
import { openWebUi, type WebUi } from '../helpers/web-ui';

let ui: WebUi;
let t: Awaited<ReturnType<typeof vastSetup>>;

beforeAll(async () => {
  requireBuilt();
  t = await vastSetup({
    offers: [
      { gpu_name: 'RTX 4090', dph_base: 0.34, geolocation: 'Sweden, SE' },
      { gpu_name: 'RTX 4090', dph_base: 0.39, geolocation: 'Germany, DE' },
      { gpu_name: 'RTX 3090', dph_base: 0.19, geolocation: 'Poland, PL' },
      { gpu_name: 'A100 SXM4', dph_base: 1.12, gpu_ram: 81_920, geolocation: 'Texas, US' },
    ],
  });
  ui = await openWebUi(t.core);
});

afterAll(async () => {
  await ui?.close();
  await t?.close();
});

describe('the UI in web mode, Vast.ai', () => {
  it('search offers, rent 2, run, tear down all: the fake shows zero live instances', async () => {
    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(ui.server.url);
    await page.getByTestId('nav-offers').click();
    // The first visit searches with the defaults.
    await expect.poll(() => page.getByTestId('offer-row').count(), { timeout: 30_000 }).toBe(4);
    // Sort by price, pick the two RTX 4090s.
    const rows = page.getByTestId('offer-row');
    const gpus = await rows.allInnerTexts();
    const picks = gpus.flatMap((text, i) => (text.includes('RTX 4090') ? [i] : []));
    expect(picks).toHaveLength(2);
    for (const i of picks) await rows.nth(i).getByTestId('offer-pick').check();
    await screenshot(page, 'offers');
    await page.getByTestId('use-offers').click();

    await page.getByTestId('composer').waitFor();
    await expect.poll(() => page.getByTestId('offer-chip').count()).toBe(2);
    await page.getByTestId('job-name').fill('vast-ui');
    await page.getByTestId('workdir-input').fill(t.work);
    await page
      .getByTestId('job-run')
      .fill(
        'cat hello.txt; for i in $(seq 1 20); do printf "\\033[32mstep %d\\033[0m\\n" $i; done; sleep 600',
      );
    await screenshot(page, 'composer-vast');
    await page.getByTestId('run-button').click();

    await page.getByTestId('run-view').waitFor();
    await expect.poll(() => page.getByTestId('log-pane').count(), { timeout: 30_000 }).toBe(2);
    for (const i of [0, 1]) {
      await expect
        .poll(() => page.getByTestId('log-pane').nth(i).locator('.xterm-rows').innerText(), {
          timeout: 90_000,
        })
        .toMatch(/hello from a rented GPU[\s\S]*step 20/);
    }
    expect(t.fake.state.liveInstances()).toHaveLength(2);
    await screenshot(page, 'run-vast');

    await page.getByTestId('teardown-all').click();
    await page.getByTestId('teardown-dialog').waitFor();
    await expect.poll(() => page.getByTestId('teardown-target').count()).toBe(2);
    await page.getByTestId('teardown-confirm').click();
    await expect
      .poll(
        async () =>
          (
            await page
              .getByTestId('teardown-lease')
              .evaluateAll((els) => els.map((e) => e.getAttribute('data-state')))
          ).join(','),
        { timeout: 60_000 },
      )
      .toBe('gone,gone');
    await screenshot(page, 'teardown-vast');
    expect(t.fake.state.liveInstances()).toEqual([]);

    await page.keyboard.press('Escape');
    await page.getByTestId('nav-ledger').click();
    await expect
      .poll(async () => {
        const stages = await page
          .getByTestId('node-row')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-stage')));
        return stages.join(',');
      })
      .toBe('destroyed,destroyed');
    await expect.poll(() => page.getByTestId('burn-rate').getAttribute('data-live')).toBe('0');
    await screenshot(page, 'ledger-vast');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a node that destroyed itself (idle after its job, kept warm) says so in the ledger', async () => {
    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(ui.server.url);
    const started = await t.core.client.invoke('run.start', {
      job: { name: 'warm', run: 'echo done', workspace: { workdir: t.work, exclude: [] } },
      pool: { provider: 'vastai', count: 1 },
      policy: { afterJob: 'keep_warm', idleTimeoutMs: 1_500, budgetUsd: 1 },
    });
    if (!started.ok) throw new Error(started.error.message);
    const row = page.locator(`[data-testid="node-row"][data-node-id="${started.value.id}/node-0"]`);
    await expect.poll(() => row.getAttribute('data-stage'), { timeout: 60_000 }).toBe('destroyed');
    await expect
      .poll(() => row.getByTestId('self-destroyed').innerText(), { timeout: 10_000 })
      .toMatch(/^destroyed by its own dead-man switch: idle for /);
    await screenshot(page, 'ledger-dead-man');
    // The run view shows its cost and budget.
    await page.getByTestId('nav-run').click();
    await page.locator(`.run-item[data-run-id="${started.value.id}"]`).click();
    await page.getByTestId('cost-chart').waitFor();
    await screenshot(page, 'run-cost');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a node whose image is being pulled shows the pull in its pane: its words, how far, the wait', async () => {
    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(ui.server.url);
    // 15 GB, stuck at 6.8 GB after a moment: the pane holds still for its picture.
    t.fake.faults.nextInstancePull({ sizeGb: 15, gbPerMin: 600, stallAtGb: 6.8 });
    const started = await t.core.client.invoke('run.start', {
      job: { name: 'big-image', run: 'echo pulled', workspace: { workdir: t.work, exclude: [] } },
      pool: { provider: 'vastai', count: 1, image: 'nvcr.io/nvidia/pytorch:25.01-py3' },
    });
    if (!started.ok) throw new Error(started.error.message);
    await page.getByTestId('nav-run').click();
    await page.locator(`.run-item[data-run-id="${started.value.id}"]`).click();
    const pull = page.getByTestId('pull-status');
    await expect
      .poll(() => pull.innerText(), { timeout: 30_000 })
      .toBe(
        'loading: nvcr.io/nvidia/pytorch:25.01-py3: Downloading [=========> ] 6.80GB/15GB (45%)',
      );
    expect(await pull.locator('.pull-bar').getAttribute('aria-label')).toBe('45% pulled');
    // The pull pushed the deadline past the short endpoint deadline (20 s here): 10 min on.
    expect(await page.getByTestId('provision-wait').innerText()).toMatch(
      /^waiting \d+ s · gives up in (9 m|10 m)/,
    );
    await screenshot(page, 'run-pull');
    const cancelled = await t.core.client.invoke('run.cancel', { runId: started.value.id });
    expect(cancelled.ok).toBe(true);
    await t.core.waitRun(started.value.id);
    await t.fake.sync();
    expect(t.fake.state.liveInstances()).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
