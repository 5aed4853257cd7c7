// Being told, in Chromium against `tender serve` (web mode): the Settings' notification
// toggle and webhook field validate, save and survive a reload; a run composed in the page
// that ends while the page is not looked at raises the browser's notification (permission
// granted in the context) and one webhook POST from the serving Tender.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { CliProcess, killLeftovers, requireBuilt } from '../helpers/cli';
import { dropFolder, screenshot, watchErrors } from '../helpers/ui';

let browser: Browser;
let serve: CliProcess;
let url: string;
let root: string;
let home: string;
let hook: Server;
const posts: { text: string; tender: { runId: string; status: string } }[] = [];

beforeAll(async () => {
  requireBuilt();
  root = mkdtempSync(join(tmpdir(), 'tender-ui-notify-'));
  home = join(root, 'home');
  hook = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      posts.push(JSON.parse(raw));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  serve = new CliProcess(['serve'], { home });
  await serve.waitFor('stdout', /^Tender web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/);
  url = /^Tender web UI: (\S+)/.exec(serve.stdout)![1]!;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  await new Promise((r) => hook?.close(r));
  killLeftovers(home);
  rmSync(root, { recursive: true, force: true });
});

/** A page whose origin may show notifications; `unwatched`: the page never has the focus,
 *  and each notification it raises is recorded in `window.__notices`. */
async function openSettings(o: { unwatched?: boolean } = {}) {
  const page = await browser.newPage({
    viewport: { width: 1440, height: 900 },
    permissions: ['notifications'],
  });
  if (o.unwatched)
    await page.addInitScript(() => {
      const w = window as unknown as { __notices: { title: string; body?: string }[] };
      w.__notices = [];
      const Real = window.Notification;
      const Recording = function (title: string, options?: NotificationOptions) {
        w.__notices.push({ title, body: options?.body });
        return new Real(title, options);
      } as unknown as typeof Notification;
      Object.defineProperty(Recording, 'permission', { get: () => Real.permission });
      Recording.requestPermission = Real.requestPermission.bind(Real);
      window.Notification = Recording;
      document.hasFocus = () => false;
    });
  const errors = watchErrors(page);
  await page.goto(url);
  await page.getByTestId('ledger').waitFor();
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('settings-notify').waitFor();
  return { page, errors };
}

const notifySaved = () =>
  JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).notify as {
    notifyDesktop: boolean;
    webhookUrl: string | null;
  };

async function reloadSettings(page: Page): Promise<void> {
  await page.reload();
  // A reload stays on the page's own route (#/settings), not the Ledger.
  await page.getByTestId('nav-settings').waitFor();
  await page.getByTestId('nav-settings').click();
  await page.getByTestId('settings-notify').waitFor();
}

describe('notifications in web mode', () => {
  it('the toggle and the webhook field validate, save and reload', async () => {
    const { page, errors } = await openSettings();
    const toggle = page.getByTestId('notify-desktop');
    expect(await toggle.isChecked()).toBe(true);
    // The context granted the permission: the section says so instead of offering to ask.
    expect(
      await page
        .getByTestId('notify-permission')
        .locator('[data-state]')
        .getAttribute('data-state'),
    ).toBe('granted');

    await toggle.uncheck();
    await expect.poll(() => notifySaved().notifyDesktop).toBe(false);
    expect(await page.getByTestId('notify-permission').count()).toBe(0);

    const field = page.getByTestId('notify-webhook');
    await field.fill('http://hooks.example.com/services/T/B/x');
    await page.getByTestId('notify-webhook-save').click();
    expect(await page.getByTestId('notify-webhook-error').innerText()).toMatch(/https only/);
    expect(notifySaved().webhookUrl).toBeNull();

    const slack = 'https://hooks.example.com/services/T0/B0/abc';
    await field.fill(slack);
    expect(await page.getByTestId('notify-webhook-error').count()).toBe(0);
    await page.getByTestId('notify-webhook-save').click();
    await expect.poll(() => notifySaved().webhookUrl).toBe(slack);
    // It holds a credential (Slack's token is in the path): a file only its owner reads.
    expect(statSync(join(home, 'settings.json')).mode & 0o777).toBe(0o600);

    await reloadSettings(page);
    expect(await page.getByTestId('notify-webhook').inputValue()).toBe(slack);
    expect(await page.getByTestId('notify-desktop').isChecked()).toBe(false);

    await page.getByTestId('notify-desktop').check();
    await expect.poll(() => notifySaved().notifyDesktop).toBe(true);
    await page.getByTestId('settings-notify').scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-notify');
    await page.getByTestId('notify-webhook').fill('');
    await page.getByTestId('notify-webhook-save').click();
    await expect.poll(() => notifySaved().webhookUrl).toBeNull();
    await reloadSettings(page);
    expect(await page.getByTestId('notify-webhook').inputValue()).toBe('');
    expect(await page.getByTestId('notify-desktop').isChecked()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a run that ends while nobody looks raises the browser notification and one POST', async () => {
    const work = join(root, 'quick');
    mkdirSync(work, { recursive: true });
    writeFileSync(
      join(work, 'tender.toml'),
      '[job]\nname = "notify-e2e"\nrun = "echo done"\nworkspace = { workdir = "." }\n\n[pool]\nprovider = "local"\ncount = 1\n',
    );
    const { page, errors } = await openSettings({ unwatched: true });
    const port = (hook.address() as AddressInfo).port;
    await page.getByTestId('notify-webhook').fill(`http://127.0.0.1:${port}/hook`);
    await page.getByTestId('notify-webhook-save').click();
    await expect.poll(() => notifySaved().webhookUrl).toBe(`http://127.0.0.1:${port}/hook`);

    await page.getByTestId('nav-composer').click();
    await page.getByTestId('composer').waitFor();
    await dropFolder(page, 'workspace-drop', work);
    await expect.poll(() => page.getByTestId('workdir-input').inputValue()).toBe(work);
    await page.getByTestId('load-toml').click();
    await expect.poll(() => page.getByTestId('job-run').inputValue()).toBe('echo done');
    await page.getByTestId('run-button').click();
    await page.getByTestId('run-view').waitFor();

    const notices = () =>
      page.evaluate(() => (window as unknown as { __notices: unknown[] }).__notices);
    await expect.poll(notices, { timeout: 60_000 }).toHaveLength(1);
    const [notice] = (await notices()) as { title: string; body: string }[];
    expect(notice!.title).toBe('notify-e2e completed');
    expect(notice!.body).toMatch(/^Run r-[a-z0-9]+ completed · \$0\.00$/);
    await expect.poll(() => posts.length, { timeout: 30_000 }).toBe(1);
    expect(posts[0]!.tender.status).toBe('completed');
    expect(posts[0]!.text).toBe(`${notice!.title} — ${notice!.body}`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
