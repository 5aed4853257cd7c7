// Port forwards and distributed jobs in the UI (web mode, local provider). The composer's
// Distributed controls: off below 2 nodes ("needs 2 nodes or more"), a stop rule and a
// master port checked as typed, refused beside a sweep; the Ports field checked as typed.
// Then a job that serves its workspace with `python3 -m http.server` and declares the port:
// the run view links its forward ("port N — localhost:M", the token the job printed on
// it), the test fetches through the link's URL, opens a second forward with "Open a
// port…", fetches through that too, closes it, cancels the run and sees the links gone
// (and the listener closed); "Open notebook" opens the tokened address in a new tab. Screenshots: test/e2e/screenshots/ui-forwards-run.png,
// ui-distributed-composer.png.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { CliProcess, killLeftovers, requireBuilt } from '../helpers/cli';
import { freePort } from '../helpers/free-port';
import { dropFolder, screenshot, watchErrors } from '../helpers/ui';

let browser: Browser;
let serve: CliProcess;
let url: string;
let root: string;
let home: string;

beforeAll(async () => {
  requireBuilt();
  root = mkdtempSync(join(tmpdir(), 'tender-ui-forwards-'));
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
const TOKEN = '0123456789abcdef0123456789abcdef';

async function openPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  const errors = watchErrors(page);
  await page.goto(url);
  await page.getByTestId('ledger').waitFor();
  return { page, errors };
}

/** GET through a forward from here (node's http, not the browser): the body, or the error. */
function fetchText(target: string): Promise<string> {
  return new Promise((resolve) => {
    const req = get(target, { timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
      res.on('error', (e) => resolve(`error ${e.message}`));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve(`error ${e.message}`));
  });
}

const runStatus = (page: Page) =>
  page.getByTestId('run-header').locator('[data-job-status]').getAttribute('data-job-status');

describe('forwards and distributed jobs in the UI, local provider', () => {
  it("the composer's Distributed controls and Ports field, checked as typed", async () => {
    const { page, errors } = await openPage();
    await page.getByTestId('nav-composer').click();
    await page.getByTestId('composer').waitFor();

    // One node: no gang to make.
    const box = page.getByTestId('distributed');
    expect(await box.isDisabled()).toBe(true);
    expect(await page.getByTestId('distributed-hint').innerText()).toBe('needs 2 nodes or more');
    await page.locator('#count').fill('2');
    await expect.poll(() => box.isDisabled()).toBe(false);
    expect(await page.getByTestId('distributed-hint').count()).toBe(0);
    await box.check();
    expect(await page.getByTestId('distributed-stop').inputValue()).toBe('all');
    const masterPort = page.getByTestId('distributed-master-port');
    expect(await masterPort.inputValue()).toBe('29500');
    await page.getByTestId('distributed-stop').selectOption('rank0');

    const problem = page.getByTestId('distributed-problem');
    await masterPort.fill('70000');
    await expect
      .poll(() => problem.innerText())
      .toBe('The master port is a number from 1 to 65535');
    await masterPort.fill('29600');
    await expect.poll(() => problem.count()).toBe(0);
    // Beside a sweep: refused.
    await page.getByTestId('sweep-axes').fill('LR = 1e-3, 3e-4');
    await expect.poll(() => problem.innerText()).toBe('A distributed job cannot also be a sweep');
    await page.getByTestId('sweep-axes').fill('');
    await expect.poll(() => problem.count()).toBe(0);
    // Fewer nodes again: it stays on, so it can be turned off, and says why it cannot run.
    await page.locator('#count').fill('1');
    await expect.poll(() => problem.innerText()).toBe('A distributed job needs 2 nodes or more');
    expect(await box.isDisabled()).toBe(false);
    await page.locator('#count').fill('2');

    // The Ports field: each entry a port or a node:local pair, 1–65535.
    const ports = page.getByTestId('job-ports');
    await ports.fill('6006, 8888:70000');
    await expect
      .poll(() => page.getByTestId('ports-problem').innerText())
      .toMatch(/^"8888:70000": the local port "70000" is not a port from 1 to 65535/);
    await ports.fill('6006, 8888:18888');
    await expect.poll(() => page.getByTestId('ports-problem').count()).toBe(0);
    await page.getByTestId('distributed-field').scrollIntoViewIfNeeded();
    await screenshot(page, 'ui-distributed-composer');

    await page.getByRole('button', { name: 'Clear form' }).click();
    expect(await box.isChecked()).toBe(false);
    expect(await ports.inputValue()).toBe('');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('links a declared port, fetches through it, opens and closes another, and drops them at the end', async () => {
    const [p1, p2] = [await freePort(), await freePort()];
    const work = join(root, 'site');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'index.html'), '<p>hello from the node</p>\n');
    // "$PWD" names the node's folder (under the home): a leftover server is found by it.
    const run = [
      `echo "serving at http://127.0.0.1:${p1}/?token=${TOKEN}"`,
      `python3 -m http.server ${p1} --bind 127.0.0.1 --directory "$PWD" &`,
      `python3 -m http.server ${p2} --bind 127.0.0.1 --directory "$PWD" &`,
      'wait',
    ].join('\n');
    const { page, errors } = await openPage();
    await page.getByTestId('nav-composer').click();
    await dropFolder(page, 'workspace-drop', work);
    await expect.poll(() => page.getByTestId('workdir-input').inputValue()).toBe(work);
    await page.getByTestId('job-name').fill('site');
    await page.getByTestId('job-run').fill(run);
    await page.getByTestId('job-ports').fill(String(p1));
    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();

    // The declared port opens when the run starts: on a local node, onto a free port here.
    const links = page.getByTestId('forward-link');
    await expect.poll(() => links.count(), { timeout: RUN_MS }).toBe(1);
    const text = await links.first().innerText();
    expect(text).toMatch(new RegExp(`^port ${p1} — localhost:\\d+$`));
    const first = `http://127.0.0.1:${/localhost:(\d+)$/.exec(text)![1]}`;
    // The token the job printed on that port's URL: beside the link, and on it.
    await expect
      .poll(() => page.getByTestId('forward-token').innerText(), { timeout: 15_000 })
      .toMatch(/^token\s+01234567…/);
    expect(await links.first().getAttribute('href')).toBe(`${first}/?token=${TOKEN}`);
    expect(await links.first().getAttribute('target')).toBe('_blank');
    expect(await page.getByTestId('forwards-where').innerText()).toMatch(
      /^Forwards listen on the machine serving Tender \(127\.0\.0\.1:\d+\), on 127\.0\.0\.1 only\.$/,
    );
    // Through the forward, from here: the node's server answers. (Not with the token: the
    // server logs the request line, and a token on a URL naming no port is every forward's.)
    await expect
      .poll(() => fetchText(first), { timeout: 30_000, interval: 500 })
      .toMatch(/^200 <p>hello from the node<\/p>/);

    // "Open a port…": checked before it is sent, then the second server's port.
    await page.getByTestId('forward-add').click();
    const form = page.getByTestId('forward-form');
    expect(await form.getByTestId('forward-node').inputValue()).toMatch(/\/node-0$/);
    await form.getByTestId('forward-node-port').fill('70000');
    await form.getByTestId('forward-open').click();
    expect(await form.getByTestId('forward-problem').innerText()).toBe(
      'The node port is a number from 1 to 65535',
    );
    await form.getByTestId('forward-node-port').fill(String(p2));
    await form.getByTestId('forward-open').click();
    await expect.poll(() => links.count(), { timeout: 15_000 }).toBe(2);
    // The list hears of the new forward by its event, the form by the call's answer: either
    // may come first, so the form's closing is awaited, not read once.
    await expect.poll(() => form.count()).toBe(0);
    const row2 = page.locator(`[data-testid="forward"][data-remote-port="${p2}"]`);
    const text2 = await row2.getByTestId('forward-link').innerText();
    expect(text2).toMatch(new RegExp(`^port ${p2} — localhost:\\d+$`));
    const second = `http://127.0.0.1:${/localhost:(\d+)$/.exec(text2)![1]}`;
    expect(await row2.getByTestId('forward-link').getAttribute('href')).toBe(second);
    await expect
      .poll(() => fetchText(second), { timeout: 15_000, interval: 500 })
      .toMatch(/^200 <p>hello from the node<\/p>/);
    expect(await row2.getByTestId('forward-open-notebook').count()).toBe(0);
    await page.getByTestId('forwards').scrollIntoViewIfNeeded();
    await screenshot(page, 'ui-forwards-run');

    // Closed: its link goes, its listener with it; the first stays.
    await row2.getByTestId('forward-close').click();
    await expect.poll(() => links.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => fetchText(second)).toMatch(/^error .*ECONNREFUSED/);
    expect(await links.first().innerText()).toBe(text);

    // "Open notebook" on the forward whose job printed a token (none on the other): a new
    // tab at the forward's address with the token, which the node's server answers. The
    // app hands the same window.open to the system browser (main-window.ts).
    const row1 = page.locator(`[data-testid="forward"][data-remote-port="${p1}"]`);
    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      row1.getByTestId('forward-open-notebook').click(),
    ]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(`${first}/?token=${TOKEN}`);
    expect(await tab.locator('body').innerText()).toContain('hello from the node');
    await tab.close();

    // The run cancelled: its forwards close at teardown, and the card with them.
    await page.getByTestId('cancel-run').click();
    await page.getByTestId('confirm-cancel').click();
    await expect.poll(() => runStatus(page), { timeout: RUN_MS }).toBe('cancelled');
    await expect.poll(() => links.count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => page.getByTestId('forwards').count()).toBe(0);
    await expect.poll(() => fetchText(first)).toMatch(/^error .*ECONNREFUSED/);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
