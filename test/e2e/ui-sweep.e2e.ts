// A sweep in the UI (web mode, local provider): a job file's [sweep] fills the composer's
// Sweep field (checked as it is typed, "6 cells over 2 nodes"); the run opens on its cells
// table (summary, params, status, last and best of a metric), sorts by a column, cancels a
// queued cell, shows a cell's log, draws every cell's curve coloured by a param and one
// chart per metric in the Metrics tab (uPlot canvases, legends); "Rerun failed cells"
// starts a run of the failed and cancelled ones; the composer then expects the sweep to take
// what its cells took. Screenshots: test/e2e/screenshots/ui-sweep-*.png.
import { mkdtempSync, rmSync } from 'node:fs';
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
  root = mkdtempSync(join(tmpdir(), 'tender-ui-sweep-'));
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

/** Five steps of loss and acc to $TENDER_METRICS, one every 0.6 s; SEED 2 fails. */
const TRAIN = `i=1
while [ $i -le 5 ]; do
  loss=$(awk -v i=$i -v s="$TENDER_PARAM_SEED" -v lr="$TENDER_PARAM_LR" 'BEGIN { printf "%.4f", 1 / (i * s) + lr * 100 }')
  echo "{\\"step\\": $i, \\"loss\\": $loss, \\"acc\\": 0.$i}" >> "$TENDER_METRICS"
  echo "step $i loss $loss"
  sleep 0.6
  i=$((i + 1))
done
echo "lr=$TENDER_PARAM_LR seed=$TENDER_PARAM_SEED"
test "$TENDER_PARAM_SEED" != 2
`;

const TOML = `[job]
name = "grid"
run = "sh train.sh"
workspace = { workdir = "." }

[sweep]
LR = ["1e-3", "3e-4"]
SEED = [1, 2, 3]

[pool]
provider = "local"
count = 2
`;

const rowIds = (page: Page) =>
  page
    .getByTestId('cell-row')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-cell-id')));
const row = (page: Page, id: string) =>
  page.locator(`[data-testid="cell-row"][data-cell-id="${id}"]`);
const runStatus = (page: Page) =>
  page.getByTestId('run-header').locator('[data-job-status]').getAttribute('data-job-status');

describe('a sweep in the UI, local provider', () => {
  it('composes from [sweep], runs 6 cells over 2 nodes; table, sort, cancel, log, charts, rerun failed', async () => {
    const work = join(writeJob(root, 'grid', TOML, { 'train.sh': TRAIN }), '..');
    const page = await browser.newPage({ viewport: { width: 1440, height: 1400 } });
    const errors = watchErrors(page);
    await page.goto(url);
    await page.getByTestId('ledger').waitFor();

    // The job file's [sweep] fills the Sweep field; the hint says what it makes.
    await page.getByTestId('nav-composer').click();
    await dropFolder(page, 'workspace-drop', work);
    await page.getByTestId('load-toml').click();
    const field = page.getByTestId('sweep-axes');
    await expect.poll(() => field.inputValue()).toBe('LR = 1e-3, 3e-4\nSEED = 1, 2, 3');
    const hint = page.getByTestId('sweep-hint');
    await expect.poll(() => hint.innerText()).toMatch(/^6 cells over 2 nodes/);
    // Checked as it is typed, by line.
    await field.fill('LR = 1e-3, 3e-4\nSEED = 1, 2, 3\nl-r = 1,,2');
    await expect
      .poll(() => page.getByTestId('sweep-problem').innerText())
      .toMatch(/^Line 3: l-r is not a param name/);
    await field.fill('LR = 1e-3, 3e-4\nSEED = 1, 2, 3');
    expect(await page.getByTestId('sweep-problem').count()).toBe(0);

    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();
    const first = page.getByTestId('run-id');
    await expect.poll(() => first.innerText(), { timeout: 15_000 }).toMatch(/^r-/);
    const firstId = (await first.innerText()).trim();

    // A sweep opens on its cells: all six, in order, the last one waiting for a node.
    await page.getByTestId('sweep-panel').waitFor();
    await expect
      .poll(() => rowIds(page), { timeout: 15_000 })
      .toEqual(['j0', 'j1', 'j2', 'j3', 'j4', 'j5']);
    expect(await row(page, 'j5').getAttribute('data-status')).toBe('queued');
    await row(page, 'j5').getByTestId('cell-cancel').click();
    await expect
      .poll(() => row(page, 'j5').getAttribute('data-status'), { timeout: 15_000 })
      .toBe('cancelled');

    await expect.poll(() => runStatus(page), { timeout: RUN_MS }).toBe('failed');
    const summary = page.getByTestId('sweep-summary');
    await expect
      .poll(() => summary.innerText(), { timeout: 15_000 })
      .toBe('6 cells: 3 completed, 2 failed, 1 cancelled');
    expect(await row(page, 'j1').getAttribute('data-status')).toBe('failed');
    expect(await row(page, 'j1').locator('td.num').first().innerText()).toBe('1');

    // The metric: loss, best = min (it is a loss); every cell that ran has a best value.
    await expect.poll(() => page.getByTestId('cells-metric').inputValue()).toBe('loss');
    expect(await page.getByTestId('best-min').getAttribute('aria-checked')).toBe('true');
    const headers = await page.locator('.cells-table thead th').allInnerTexts();
    expect(headers.map((h) => h.trim().toLowerCase())).toEqual([
      'cell',
      'lr',
      'seed',
      'status',
      'node',
      'exit',
      'duration',
      'last loss',
      'best loss',
      '',
    ]);
    // j0: LR 1e-3, SEED 1: 1/(5·1) + 0.1 = 0.3 last, and its least too.
    await expect
      .poll(() => row(page, 'j0').locator('td').nth(7).innerText(), { timeout: 15_000 })
      .toBe('0.3');

    // Sorted by SEED, then the other way; by the best loss, the cancelled cell (none) last.
    await page.getByTestId('cells-sort-param:SEED').click();
    expect(await rowIds(page)).toEqual(['j0', 'j3', 'j1', 'j4', 'j2', 'j5']);
    await page.getByTestId('cells-sort-param:SEED').click();
    expect(await rowIds(page)).toEqual(['j2', 'j5', 'j1', 'j4', 'j0', 'j3']);
    // Best loss at step 5: 1/(5·SEED) + LR·100.
    await page.getByTestId('cells-sort-best').click();
    expect(await rowIds(page)).toEqual(['j4', 'j2', 'j1', 'j3', 'j0', 'j5']);

    // Every cell's loss, overlaid, coloured by LR; then by SEED.
    const curves = page.getByTestId('cell-curves');
    await expect.poll(() => curves.locator('canvas').count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('colour-legend').innerText()).toMatch(/LR=3e-4/);
    expect(await page.getByTestId('colour-legend').innerText()).toMatch(/LR=1e-3/);
    await page.getByTestId('colour-by').selectOption('SEED');
    await expect
      .poll(() => page.getByTestId('colour-legend').innerText())
      .toMatch(/SEED=1\s+SEED=2\s+SEED=3/);

    // A cell's log: its own lines only.
    await row(page, 'j1').getByTestId('cell-log').click();
    const log = page.getByTestId('cell-log-view');
    await expect.poll(() => log.innerText(), { timeout: 15_000 }).toContain('lr=1e-3 seed=2');
    expect(await log.innerText()).not.toContain('seed=1');
    await screenshot(page, 'ui-sweep-cells');

    // The Metrics tab: a chart per metric, a line per cell, with a legend.
    await page.getByTestId('run-tab-metrics').click();
    const charts = page.getByTestId('metric-chart');
    await expect.poll(() => charts.count(), { timeout: 15_000 }).toBe(2);
    expect(await charts.evaluateAll((cs) => cs.map((c) => c.getAttribute('data-metric')))).toEqual([
      'loss',
      'acc',
    ]);
    await expect.poll(() => charts.first().locator('canvas').count()).toBeGreaterThan(0);
    const legend = await charts.first().locator('.u-legend').innerText();
    for (const id of ['j0', 'j1', 'j2', 'j3', 'j4']) expect(legend).toContain(id);
    expect(legend).not.toContain('j5');
    await screenshot(page, 'ui-sweep-metrics');

    // Back on the cells, what was picked is as it was.
    await page.getByTestId('run-tab-cells').click();
    expect(await page.getByTestId('colour-by').inputValue()).toBe('SEED');
    // Rerun failed cells: a new run of j1, j4 (failed) and j5 (cancelled).
    await page.getByTestId('rerun-failed').click();
    await expect.poll(() => first.innerText(), { timeout: 15_000 }).not.toBe(firstId);
    await page.getByTestId('sweep-panel').waitFor();
    await expect.poll(() => rowIds(page), { timeout: 15_000 }).toEqual(['j1', 'j4', 'j5']);
    await expect.poll(() => runStatus(page), { timeout: RUN_MS }).toBe('failed');
    await expect
      .poll(() => summary.innerText(), { timeout: 15_000 })
      .toBe('3 cells: 1 completed, 2 failed');

    // Back in the composer, the same sweep is expected to take what these cells took.
    await page.getByTestId('nav-composer').click();
    await expect
      .poll(() => page.getByTestId('sweep-estimate').innerText(), { timeout: 30_000 })
      .toMatch(
        /^Expected: about .* on the clock, .* \(a cell took .* in r-[a-z0-9]+; setup left out\)\.$/,
      );
    await page.getByTestId('sweep-estimate').scrollIntoViewIfNeeded();
    await screenshot(page, 'ui-sweep-composer');
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
