// A SkyPilot task dropped on the composer (web mode, Chromium): the form fills from it as
// `tender import` would write it — name, setup, run, the node count, distributed — and Run
// runs it on this machine, both ranks reporting.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { CliProcess, killLeftovers, requireBuilt } from '../helpers/cli';
import { dropFolder, screenshot, watchErrors } from '../helpers/ui';

let browser: Browser;
let serve: CliProcess;
let url: string;
let root: string;
let home: string;

beforeAll(async () => {
  requireBuilt();
  root = mkdtempSync(join(tmpdir(), 'tender-ui-import-'));
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

const TASK = `name: ranks
workdir: .
num_nodes: 2
setup: echo setting up
run: echo "rank $SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES"
`;

describe('a SkyPilot task dropped on the composer', () => {
  it('fills the form as tender import would, and runs on this machine', async () => {
    const work = join(root, 'proj');
    mkdirSync(work, { recursive: true });
    const task = join(work, 'task.yaml');
    writeFileSync(task, TASK);
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors = watchErrors(page);
    await page.goto(url);
    await page.getByTestId('nav-composer').click();
    await page.getByTestId('composer').waitFor();
    await dropFolder(page, 'workspace-drop', task);
    await expect.poll(() => page.getByTestId('job-name').inputValue()).toBe('ranks');
    // workdir: . is the task file's folder.
    expect(await page.getByTestId('workdir-input').inputValue()).toBe(work);
    await expect.poll(() => page.getByTestId('job-run').inputValue()).toMatch(/SKYPILOT_NODE_RANK/);
    expect(await page.getByTestId('job-setup').inputValue()).toBe('echo setting up');
    expect(await page.locator('.count-input').first().inputValue()).toBe('2');
    expect(await page.getByTestId('distributed').isChecked()).toBe(true);
    await screenshot(page, 'composer-from-skypilot');

    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();
    await expect.poll(() => page.getByTestId('node-exit').count(), { timeout: 60_000 }).toBe(2);
    const panes = page.getByTestId('log-pane');
    const text = async () => (await panes.locator('.xterm-rows').allInnerTexts()).join('\n');
    await expect.poll(text, { timeout: 60_000 }).toMatch(/rank 0 of 2/);
    await expect.poll(text, { timeout: 60_000 }).toMatch(/rank 1 of 2/);
    expect(errors).toEqual([]);
  });
});
