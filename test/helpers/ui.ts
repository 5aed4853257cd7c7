import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';

/** Where the UI tests leave a screenshot of each view (look at them after a change). */
export const SCREENSHOTS = resolve(import.meta.dirname, '..', 'e2e', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Let frames settle (xterm renders on animation frames).
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Drops a folder on an element as a Linux file manager does in a browser: a `text/uri-list`
 *  with its file:// URL (a real desktop drop also carries File entries, which a browser
 *  page cannot turn into paths). */
export async function dropFolder(page: Page, testId: string, folder: string): Promise<void> {
  await page.getByTestId(testId).evaluate((el, path) => {
    const dt = new DataTransfer();
    dt.setData('text/uri-list', `file://${encodeURI(path)}`);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  }, folder);
}

/** Collects page errors and console errors so a test can assert there were none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return errors;
}
