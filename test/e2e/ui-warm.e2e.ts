// Warm nodes in the UI (web mode, local provider): a run kept from the composer leaves its
// node warm; the composer then says the next run reuses it, that run's node is marked as
// the warm node, Rerun on it claims the node once more, and the ledger shows the lease warm
// with the runs it served. One screenshot: test/e2e/screenshots/ledger-warm.png.
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
  root = mkdtempSync(join(tmpdir(), 'tender-ui-warm-'));
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

const RUN_MS = 90_000;

/** The id of the run the run view shows once it is not `previous`. */
async function openedRun(page: Page, previous: string | null): Promise<string> {
  const id = page.getByTestId('run-id');
  await expect.poll(() => id.innerText(), { timeout: 15_000 }).toMatch(/^r-/);
  if (previous) await expect.poll(() => id.innerText(), { timeout: 15_000 }).not.toBe(previous);
  return (await id.innerText()).trim();
}

async function waitCompleted(page: Page): Promise<void> {
  const status = page.getByTestId('run-header').locator('[data-job-status]');
  await expect
    .poll(() => status.getAttribute('data-job-status'), { timeout: RUN_MS })
    .toBe('completed');
}

describe('warm nodes in the UI, local provider', () => {
  it('keeps a node, reuses it from the composer and by Rerun; the ledger shows it warm', async () => {
    const work = join(root, 'hello');
    cpSync(join(EXAMPLES, 'hello'), work, { recursive: true });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(url);
    await page.getByTestId('ledger').waitFor();

    // Compose from the example, kept after its job: nothing is warm yet.
    await page.getByTestId('nav-composer').click();
    await dropFolder(page, 'workspace-drop', work);
    await page.getByTestId('load-toml').click();
    await expect.poll(() => page.getByTestId('job-run').inputValue()).toBe('sh run.sh');
    await page.getByTestId('keep-nodes').check();
    const placement = page.getByTestId('placement');
    await expect.poll(() => placement.innerText(), { timeout: 15_000 }).toMatch(/Rents a new node/);
    expect(await page.getByTestId('new-node').count()).toBe(0);
    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();
    const first = await openedRun(page, null);
    await waitCompleted(page);

    // Back in the composer, the same job goes to the node the first run kept.
    await page.getByTestId('nav-composer').click();
    await expect
      .poll(() => placement.innerText(), { timeout: 30_000 })
      .toMatch(new RegExp(`Reuses warm node .*kept by ${first}`));
    await expect.poll(() => page.getByTestId('new-node').isVisible()).toBe(true);
    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();
    const second = await openedRun(page, first);
    await expect
      .poll(() => page.getByTestId('claimed-from').first().innerText(), { timeout: 15_000 })
      .toBe(`warm node from ${first}`);
    await waitCompleted(page);

    // Rerun: the same job and pool again, on the node the second run kept.
    await page.getByTestId('rerun').click();
    const third = await openedRun(page, second);
    await expect
      .poll(() => page.getByTestId('claimed-from').first().innerText(), { timeout: 15_000 })
      .toBe(`warm node from ${second}`);
    await waitCompleted(page);
    expect(await page.getByTestId('rerun-error').count()).toBe(0);

    // The ledger: one lease, warm again, that served all three; the earlier runs passed it on.
    await page.getByTestId('nav-ledger').click();
    const group = (id: string) => page.locator(`[data-testid="run-group"][data-run-id="${id}"]`);
    const warm = group(third).getByTestId('warm-lease');
    await expect.poll(() => warm.innerText(), { timeout: 30_000 }).toMatch(/^warm/);
    expect(await warm.innerText()).toMatch(/idle ends in \d+ (min|s)|no idle timeout/);
    await expect
      .poll(() => group(third).getByTestId('served-runs').innerText(), { timeout: 30_000 })
      .toBe(`served: ${first}, ${second}, ${third}`);
    expect(await group(third).getByTestId('claimed-from').innerText()).toBe(
      `warm node from ${second}`,
    );
    expect(await group(first).getByTestId('released-to').innerText()).toBe(
      `lease passed to ${second}`,
    );
    expect(await group(first).getByTestId('node-row').getAttribute('data-stage')).toBe('released');
    await screenshot(page, 'ledger-warm');
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
