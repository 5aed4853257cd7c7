// How the run view's metrics charts take a big sweep: the real MetricsPanel (uPlot through
// UPlotChart) in headless Chromium, mounted with 24 curves × 10 000 points, then fed 100
// points per curve per tick for 20 ticks, the way the live poll feeds it. Prints the work
// of each step and the longest main-thread task; figures only, no assertions.
//   node bench/run.mjs metrics-render [--lines 24] [--points 10000] [--ticks 20] [--add 100] [--charts 1]
// The page is bench/metrics-render/ (a harness that mounts the panel with no backend),
// built here by Vite with the renderer's plugins and served on 127.0.0.1.
import react from '@vitejs/plugin-react';
import { createReadStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'vite';
import { launchChromium } from '../test/helpers/browser';

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '24' },
    points: { type: 'string', default: '10000' },
    ticks: { type: 'string', default: '20' },
    add: { type: 'string', default: '100' },
    /** Metrics (charts) per cell: 1 is the sweep's overlay; more is a Metrics tab. */
    charts: { type: 'string', default: '1' },
    /** Pause between ticks (the live poll is every 1 000 ms). */
    every: { type: 'string', default: '250' },
  },
});
const LINES = Number(values.lines);
const POINTS = Number(values.points);
const TICKS = Number(values.ticks);
const ADD = Number(values.add);
const CHARTS = Number(values.charts);

const root = resolve(import.meta.dirname, '..', '..');
const outDir = mkdtempSync(join(tmpdir(), 'tender-metrics-bench-'));
await build({
  configFile: false,
  root: join(root, 'bench', 'metrics-render'),
  base: './',
  logLevel: 'warn',
  plugins: [react()],
  build: { outDir, emptyOutDir: true, chunkSizeWarningLimit: 4096 },
});

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const server = createServer((req, res) => {
  const path = normalize(join(outDir, new URL(req.url ?? '/', 'http://x').pathname));
  const file = path.endsWith('/') ? join(path, 'index.html') : path;
  if (!file.startsWith(outDir) || !existsSync(file)) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as { port: number }).port;

const browser = await launchChromium();
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && console.log(`[console] ${m.text()}`));
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: { at: number; ms: number }[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push({ at: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForFunction(() => window.__metricsBench !== undefined);
  const longTasks = (from: number) =>
    page.evaluate(
      (t) =>
        (window as unknown as { __longTasks: { at: number; ms: number }[] }).__longTasks
          .filter((x) => x.at >= t)
          .map((x) => x.ms),
      from,
    );
  const now = () => page.evaluate(() => performance.now());
  const idle = (ms: number) => page.waitForTimeout(ms);

  console.log(
    `metrics-render: ${LINES} curves × ${POINTS.toLocaleString('en-US')} points in ${CHARTS} chart${CHARTS === 1 ? '' : 's'}, then ${TICKS} ticks of +${ADD} points per curve; Chromium ${browser.version()}`,
  );
  await page.evaluate((o) => window.__metricsBench!.prepare(o), {
    lines: LINES,
    points: POINTS,
    charts: CHARTS,
  });
  await idle(300);
  const t0 = await now();
  const mountMs = await page.evaluate(() => window.__metricsBench!.mount());
  await idle(500);
  const canvases = await page.locator('.metric-chart canvas').count();
  const mountTasks = await longTasks(t0);

  const t1 = await now();
  const ticks: number[] = [];
  for (let i = 0; i < TICKS; i++) {
    ticks.push(await page.evaluate((n) => window.__metricsBench!.append(n), ADD));
    await idle(Number(values.every));
  }
  await idle(300);
  const tickTasks = await longTasks(t1);
  const sorted = [...ticks].sort((a, b) => a - b);
  const legend = await page.locator('.metric-chart .u-legend').first().innerText();
  const longest = (l: number[]) => (l.length ? fmt(Math.max(...l)) : 'none over 50 ms');

  console.log(
    `  mount            ${fmt(mountMs)} (until every chart drew: render, align, then each chart made and drawn in a task of its own; ${canvases} canvas)`,
  );
  console.log(
    `    long tasks     ${mountTasks.length} over 50 ms, ${mountTasks.filter((x) => x > 100).length} over 100 ms, longest ${longest(mountTasks)}`,
  );
  console.log(
    `  tick (+${ADD}/curve) median ${fmt(sorted[Math.floor(sorted.length / 2)]!)}, max ${fmt(sorted.at(-1)!)}, min ${fmt(sorted[0]!)} (until every chart drew: merge and align, then each chart's setData and draw in a task of its own; a frame may fall between)`,
  );
  console.log(`    each           ${ticks.map((t) => t.toFixed(0)).join(' ')} ms`);
  console.log(
    `    long tasks     ${tickTasks.length} over 50 ms, ${tickTasks.filter((x) => x > 100).length} over 100 ms, longest ${longest(tickTasks)}`,
  );
  console.log(
    `  points now       ${(POINTS + TICKS * ADD).toLocaleString('en-US')} per curve; legend "${legend.replace(/\s+/g, ' ').slice(0, 60)}…"`,
  );
} finally {
  await browser.close();
  server.close();
  rmSync(outDir, { recursive: true, force: true });
}
