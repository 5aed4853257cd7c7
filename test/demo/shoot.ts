// Screenshots of the UI served at a web-mode URL, one per view, for looking at while working
// on the renderer:  node bench/run.mjs test/demo/shoot.ts <url> <outdir> [ledger offers composer run settings]
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../helpers/browser';

const [url, outDir, ...views] = process.argv.slice(2);
if (!url || !outDir) {
  console.error('usage: shoot.ts <url> <outdir> [view...]');
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
page.on('console', (m) => {
  if (m.type() === 'error' || m.type() === 'warning')
    console.log(`[console.${m.type()}] ${m.text()}`);
});
page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
await page.goto(url);
await page.waitForTimeout(1_000);
for (const view of views.length ? views : ['ledger', 'offers', 'composer', 'run', 'settings']) {
  await page.getByTestId(`nav-${view}`).click();
  await page.waitForTimeout(800);
  const file = join(outDir, `${view}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(file);
}
await browser.close();
