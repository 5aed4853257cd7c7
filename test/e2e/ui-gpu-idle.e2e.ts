// The run view in Chromium (web mode) for a run with a GPU idle rule, on the local provider
// with a fake nvidia-smi reporting idle GPUs: beside the node's GPU chart the rule in words
// and its threshold dashed on the sparkline; once the node's agent fires it (notify here,
// so the job and its chart stay up), a badge saying what it did. Screenshot: run-gpu-idle.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from '../helpers/agent-bundle';
import { killLeftovers, requireBuilt } from '../helpers/cli';
import { writeFakeNvidiaSmi } from '../helpers/fake-nvidia-smi';
import { SCREENSHOTS, screenshot, watchErrors } from '../helpers/ui';
import { openWebUi, type WebUi } from '../helpers/web-ui';

let ui: WebUi;
let core: TenderCore;
let root: string;

beforeAll(async () => {
  requireBuilt();
  root = mkdtempSync(join(tmpdir(), 'tender-ui-gpu-idle-'));
  // This file's worker only: the local node's agent starts with this PATH.
  const bin = writeFakeNvidiaSmi(join(root, 'bin'), '0, 4, 1210, 81920\n');
  process.env.PATH = `${bin}:${process.env.PATH}`;
  core = TenderCore.open({
    home: join(root, 'home'),
    env: { TENDER_AGENT_BUNDLE: agentBundlePath() },
  });
  ui = await openWebUi(core);
});

afterAll(async () => {
  await ui?.close();
  await core?.client.invoke('lease.destroyAll', {});
  await core?.close();
  killLeftovers(root);
  rmSync(root, { recursive: true, force: true });
});

describe('the run view, a run with a GPU idle rule', () => {
  it('shows the rule beside the GPU chart, and what the node did when it fired', async () => {
    const work = join(root, 'work');
    mkdirSync(work, { recursive: true });
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'idle-gpus',
        run: 'echo loading; sleep 600',
        workspace: { workdir: work, exclude: [] },
      },
      pool: { provider: 'local', count: 1, verify: [] },
      policy: { gpuIdle: { belowPct: 10, forMs: 2_000, then: 'notify' } },
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;

    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(`${ui.server.url}#/runs/${runId}`);
    await page.getByTestId('run-view').waitFor();
    const rule = page.getByTestId('gpu-idle-rule');
    await expect
      .poll(() => rule.innerText(), { timeout: 60_000 })
      .toMatch(/^GPU idle rule: notify after 2s under 10%/);
    await page.getByTestId('gpu-usage').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('sparkline-threshold').count()).toBe(1);
    const fired = page.getByTestId('gpu-idle-fired');
    await expect.poll(() => fired.count(), { timeout: 60_000 }).toBe(1);
    expect(await fired.innerText()).toMatch(/^GPUs idle: notified at /);
    expect(await fired.getAttribute('title')).toMatch(
      /every GPU under 10% for \S+ while the job ran — notified \(the job went on\)/,
    );
    await screenshot(page, 'run-gpu-idle');
    expect(errors).toEqual([]);

    const cancelled = await core.client.invoke('run.cancel', { runId });
    expect(cancelled.ok).toBe(true);
    await core.waitRun(runId);
  });

  it('the composer offers the rule among the limits, its defaults as placeholders', async () => {
    // Tall enough that the sticky estimate covers none of the Limits card.
    const page = await ui.browser.newPage({ viewport: { width: 1440, height: 1600 } });
    const errors = watchErrors(page);
    await page.goto(ui.server.url);
    await page.getByTestId('nav-composer').click();
    await page.getByTestId('composer').waitFor();
    const then = page.getByTestId('gpu-idle-then');
    expect(await then.inputValue()).toBe('');
    expect(await page.getByTestId('gpu-idle-below').count()).toBe(0); // off: nothing more
    await then.selectOption('stop');
    expect(await page.getByTestId('gpu-idle-below').getAttribute('placeholder')).toBe('10');
    expect(await page.getByTestId('gpu-idle-for').getAttribute('placeholder')).toBe('30m');
    await page.getByTestId('gpu-idle-for').fill('soon');
    await expect
      .poll(() => page.getByTestId('gpu-idle-field').innerText())
      .toContain('A duration of at least 1s, like 30m');
    await page.getByTestId('gpu-idle-for').fill('45m');
    // The Limits card alone: the rule's field among the other limits.
    const card = page.locator('section.composer-card', {
      has: page.getByTestId('gpu-idle-field'),
    });
    await card.screenshot({ path: join(SCREENSHOTS, 'composer-gpu-idle.png') });
    expect(errors).toEqual([]);
  });
});
