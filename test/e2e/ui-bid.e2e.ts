// The ledger in Chromium (web mode) with an interruptible Vast.ai lease that gets outbid: a red
// "outbid" badge within a reconcile pass, the Raise bid dialog proposing the minimum + 10%,
// and the lease running again once raised. Real sshd nodes behind the fake. Needs root.
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
      { gpu_name: 'RTX 4090', dph_base: 0.34, min_bid: 0.21, geolocation: 'Sweden, SE' },
      { gpu_name: 'RTX 4090', dph_base: 0.5, min_bid: 0.3, geolocation: 'Germany, DE' },
    ],
    timing: { reconcileEveryMs: 250 },
  });
  ui = await openWebUi(t.core);
});

afterAll(async () => {
  await ui?.close();
  await t?.close();
});

describe('the ledger, an outbid lease', () => {
  it('shows it outbid in red; Raise bid runs it again', async () => {
    const started = await t.core.client.invoke('run.start', {
      job: { name: 'bid-ui', run: 'sleep 600', workspace: { workdir: t.work, exclude: [] } },
      pool: { provider: 'vastai', interruptible: true },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    await t.core.waitJobsStarted(runId);
    const [inst] = t.fake.state.liveInstances();
    await t.fake.faults.outbid(inst!.id); // 0.231 → min 0.289

    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(ui.server.url);
    // The offers table: the interruptible price beside on-demand (the first offer is ours now).
    await page.getByTestId('nav-offers').click();
    const bidCell = page.getByTestId('offer-bid-price').first();
    await expect.poll(() => bidCell.textContent(), { timeout: 30_000 }).toMatch(/^\$0\.307\/h/);
    await screenshot(page, 'offers-interruptible');
    await page.getByTestId('nav-ledger').click();
    const badge = page.getByTestId('lease-interruption');
    await expect.poll(() => badge.textContent(), { timeout: 30_000 }).toBe('outbid');
    expect(await badge.getAttribute('title')).toContain('bid $0.231/h, now min $0.289/h');
    await screenshot(page, 'ledger-outbid');

    await page.getByTestId('lease-raise-bid').click();
    const input = page.getByTestId('raise-bid-input');
    expect(await input.inputValue()).toBe('0.318');
    await screenshot(page, 'raise-bid-dialog');
    await page.getByTestId('raise-bid-confirm').click();

    await expect.poll(() => badge.count(), { timeout: 30_000 }).toBe(0);
    expect(await page.getByTestId('lease-raise-bid').count()).toBe(0);
    expect(t.fake.state.instances()[0]!.actualStatus).toBe('running');
    expect(t.fake.state.billing(inst!.id).bid).toBe(0.318);
    expect(errors).toEqual([]);

    const cancelled = await t.core.client.invoke('run.cancel', { runId });
    expect(cancelled.ok).toBe(true);
    await t.core.waitRun(runId);
    expect(t.fake.state.liveInstances()).toEqual([]);
  });
});

describe('the composer, an interruptible pool', () => {
  it('rents a bid at the price typed; a bid that is not a price is named before anything runs', async () => {
    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(ui.server.url);
    await page.getByTestId('nav-composer').click();
    await page.getByTestId('composer').waitFor();
    await page.getByTestId('job-name').fill('bid-composer');
    await page.getByTestId('workdir-input').fill(t.work);
    await page.getByTestId('job-run').fill('echo "on a bid"');
    await page.getByTestId('provider-vastai').click();
    await page.getByTestId('interruptible').check();
    const bid = page.getByTestId('bid-input');
    await bid.fill('cheap');
    const before = t.fake.state.instances().length;
    await page.getByTestId('run-button').click(); // refused here, with the fix
    await expect
      .poll(() => page.locator('.field-error').allInnerTexts())
      .toContainEqual(expect.stringMatching(/bid is a price in \$\/h/));
    expect(t.fake.state.instances()).toHaveLength(before);
    // Above the first machine's minimum bid since the test before outbid it (0.289).
    await bid.fill('0.31');
    await screenshot(page, 'composer-interruptible');
    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();
    await expect.poll(() => t.fake.state.instances().length, { timeout: 30_000 }).toBe(before + 1);
    const inst = t.fake.state.instances().at(-1)!;
    expect(inst.view.is_bid).toBe(true);
    expect(t.fake.state.billing(inst.id).bid).toBe(0.31);
    // The job ended; the node was torn down.
    await expect.poll(() => t.fake.state.liveInstances().length, { timeout: 60_000 }).toBe(0);
    expect(errors).toEqual([]);
  });
});
