// The page `tender serve` serves, in Chromium: the session token leaves the address bar and
// the history entry as soon as the page reads it and the tab keeps working across a reload;
// a tab without it is not connected; no CSP violation on the way; another site cannot frame
// the page; and a name re-pointed at 127.0.0.1 (DNS rebinding) gets a refusal, not the app.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser';
import { CliProcess, killLeftovers, requireBuilt, tempHome } from '../helpers/cli';
import { watchErrors } from '../helpers/ui';

const REBOUND = 'rebound.tender.test'; // resolved by Chromium to 127.0.0.1, see beforeAll

let browser: Browser;
let serve: CliProcess;
let url: string;
let port: number;
let temp: ReturnType<typeof tempHome>;

beforeAll(async () => {
  requireBuilt();
  temp = tempHome('tender-ui-serve-');
  serve = new CliProcess(['serve'], { home: temp.home });
  await serve.waitFor('stdout', /^Tender web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/);
  url = /^Tender web UI: (\S+)/.exec(serve.stdout)![1]!;
  port = Number(new URL(url).port);
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
});

afterAll(async () => {
  await browser?.close();
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  killLeftovers(temp.home);
  temp.cleanup();
});

/** The ledger answered over the socket: its empty state is drawn from status.get. */
async function connected(page: Page): Promise<void> {
  await page.getByTestId('ledger-empty').waitFor();
}

describe('the served page', () => {
  it('drops the token from the address and history, and still works after a reload', async () => {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(url);
    await connected(page);
    const token = new URL(url).searchParams.get('token')!;
    // What stays is the page and the app's own route (#/ledger, #/runs/<id>), never the token.
    expect(await page.evaluate(() => location.href)).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:${port}/(#/[a-z]+)?$`),
    );
    // replaceState rewrote the history entry itself: back, then forward, lands on the
    // address without the token (the tab's session storage still connects it).
    await page.goBack();
    await page.goForward();
    expect(page.url()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/(#/[a-z]+)?$`));
    await connected(page);
    expect(await page.evaluate(() => document.referrer)).toBe('');

    await page.reload();
    await connected(page);
    expect(await page.evaluate(() => location.href)).not.toContain(token);
    expect(errors).toEqual([]); // a CSP violation would be a console error
    await page.close();
  });

  it('a tab opened without the token is not connected', async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.getByText('Tender is not connected').waitFor();
    await page.close();
  });

  it('cannot be framed by another page', async () => {
    const page = await browser.newPage(); // about:blank: another origin, and no CSP of its own
    const refused = page.waitForEvent('console', (m) => /frame-ancestors 'none'/.test(m.text()));
    await page.setContent(`<iframe src="${url}"></iframe>`);
    expect((await refused).text()).toContain(`Framing 'http://127.0.0.1:${port}/' violates`);
    // The frame holds Chromium's error page, never the app.
    await expect.poll(() => page.frames()[1]?.url()).toMatch(/^chrome-error:/);
    await page.close();
  });

  it('a rebound name gets a refusal naming the address, not the app', async () => {
    const page = await browser.newPage();
    const res = await page.goto(
      `http://${REBOUND}:${port}/?token=${new URL(url).searchParams.get('token')}`,
    );
    expect(res?.status()).toBe(421);
    expect(await page.textContent('body')).toContain(`answers only to http://127.0.0.1:${port}/`);
    expect(await page.locator('#root').count()).toBe(0);
    await page.close();
  });
});
