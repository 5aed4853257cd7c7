// How the Run view keeps up with a fast log: a local job prints LINES coloured lines while
// its Run view is open in headless Chromium (web mode); then the finished run is opened in
// a fresh page. Prints what the renderer did; figures only, no assertions (bench/ui-logs.md).
//   node build/build-renderer.mjs /tmp/r && node bench/run.mjs ui-logs --renderer /tmp/r [--lines N]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { startWebServer } from '../src-main/api/ws-server';
import { TenderCore } from '../src-main/core/tender-core';
import { LocalProvider } from '../src-main/providers/local/local-provider';
import { agentBundlePath } from '../test/helpers/agent-bundle';
import { launchChromium } from '../test/helpers/browser';

const { values } = parseArgs({
  options: {
    renderer: { type: 'string', default: resolve(import.meta.dirname, '../../out/renderer') },
    lines: { type: 'string', default: '1000000' },
    /** Give up on a phase after this many seconds. */
    timeout: { type: 'string', default: '300' },
    /** Write the renderer's CPU profiles here (live; .finished.cpuprofile: the reopen). */
    profile: { type: 'string' },
  },
});
const LINES = Number(values.lines);
const QUIET_MS = 3_000; // nothing new in the pane for this long, and no read pending: done
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Stats {
  linesWritten: number;
  linesLeftOut: number;
  linesSkipped: number;
  storeReads: number;
}

/** A page with the long-task observer installed before any script runs. */
async function openPage(browser: Browser, url: string) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (e) => console.log(`[pageerror] ${e.message}`));
  await page.addInitScript(() => {
    const w = window as unknown as { __longTasks: { at: number; ms: number }[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push({ at: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const heapMb = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0) / 2 ** 20;
  };
  await page.goto(url);
  await page.getByTestId('nav-run').click();
  const collectGarbage = () => cdp.send('HeapProfiler.collectGarbage');
  return { page, cdp, heapMb, collectGarbage };
}

/** Samples the pane every second until it is done (the run has ended, nothing new for a
 *  while, no "reading log…"), then reports the figures of that stretch. */
async function measure(
  label: string,
  page: Page,
  heapMb: () => Promise<number>,
  collectGarbage: () => Promise<unknown>,
  isRunOver: () => boolean,
): Promise<void> {
  const pageT0 = await page.evaluate(() => performance.now());
  const t0 = performance.now();
  const stats = () => page.evaluate(() => ({ ...window.__tenderLogStats! }) as Stats);
  const base = await stats();
  const heap = [await heapMb()];
  const samples: { t: number; lines: number }[] = [{ t: t0, lines: base.linesWritten }];
  let lastChange = t0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1_000));
    const s = await stats();
    const t = performance.now();
    if (s.linesWritten !== samples.at(-1)!.lines) lastChange = t;
    samples.push({ t, lines: s.linesWritten });
    heap.push(await heapMb());
    const isReading = (await page.locator('.pane-loading').count()) > 0;
    process.stdout.write(
      `\r  ${label}: ${((t - t0) / 1000).toFixed(0).padStart(4)} s  ${fmt(s.linesWritten - base.linesWritten).padStart(11)} lines in xterm  heap ${heap.at(-1)!.toFixed(1)} MB ${isReading ? '(reading)' : '         '}`,
    );
    if (isRunOver() && !isReading && t - lastChange > QUIET_MS) break;
    if (t - t0 > Number(values.timeout) * 1000) {
      process.stdout.write('  timed out');
      break;
    }
  }
  process.stdout.write('\n');
  await collectGarbage();
  const afterGc = await heapMb();
  const end = await stats();
  const tasks = await page.evaluate(
    () => (window as unknown as { __longTasks: { at: number; ms: number }[] }).__longTasks,
  );
  const during = tasks.filter((x) => x.at >= pageT0).map((x) => x.ms);
  const written = end.linesWritten - base.linesWritten;
  const busy = samples.filter((s, i) => i > 0 && s.lines > samples[i - 1]!.lines);
  const from = busy.length ? samples[samples.indexOf(busy[0]!) - 1]!.t : t0;
  const to = busy.length ? busy.at(-1)!.t : t0;
  const peak = Math.max(0, ...samples.map((s, i) => (i ? s.lines - samples[i - 1]!.lines : 0)));
  console.log(
    `    xterm parsed     ${fmt(written)} lines in ${((to - from) / 1000).toFixed(1)} s = ${fmt(written / Math.max(0.001, (to - from) / 1000))} lines/s (peak second ${fmt(peak)})`,
  );
  console.log(
    `    left out         ${fmt(end.linesLeftOut - base.linesLeftOut)} lines queued for xterm, dropped to keep up`,
  );
  console.log(
    `    skipped          ${fmt(end.linesSkipped - base.linesSkipped)} lines never fetched (holes in the live stream, or older than a pane keeps)`,
  );
  console.log(
    `    store reads      ${fmt(end.storeReads - base.storeReads)} logs.read pages (backfill, holes in the live stream)`,
  );
  console.log(`    done after       ${((lastChange - t0) / 1000).toFixed(1)} s`);
  console.log(
    `    long tasks       ${during.length} over 50 ms, ${during.filter((d) => d > 100).length} over 100 ms, longest ${during.length ? Math.max(...during).toFixed(0) : 0} ms`,
  );
  console.log(
    `    JS heap          start ${heap[0]!.toFixed(1)} MB, peak ${Math.max(...heap).toFixed(1)} MB, end ${heap.at(-1)!.toFixed(1)} MB, ${afterGc.toFixed(1)} MB after a GC  (per second: ${heap.map((h) => h.toFixed(0)).join(' ')})`,
  );
}

const root = mkdtempSync(join(tmpdir(), 'tender-ui-logs-'));
const work = join(root, 'work');
mkdirSync(work);
const core = TenderCore.open({
  home: join(root, 'home'),
  env: { TENDER_AGENT_BUNDLE: agentBundlePath() },
  providers: (d) => [new LocalProvider(d.home, d.now)],
  reconcile: false,
});
const server = await startWebServer(core, { rendererDir: values.renderer });
const browser = await launchChromium();

try {
  console.log(
    `ui-logs: ${fmt(LINES)} coloured job lines, one local node, Chromium ${browser.version()}`,
  );
  const live = await openPage(browser, server.url);

  // The backend's side: job lines it sent as log.lines events (the renderer's input).
  let emitted = 0;
  let firstEmit = 0;
  let lastEmit = 0;
  core.bus.on('log.lines', ({ records }) => {
    const n = records.filter((r) => r.source === 'run').length;
    if (n === 0) return;
    emitted += n;
    lastEmit = performance.now();
    firstEmit ||= lastEmit;
  });

  // A second's pause lets the pane open first; then colours on every line.
  const awk = `awk 'BEGIN { for (i = 1; i <= ${LINES}; i++) printf "\\033[32mstep %d\\033[0m loss=\\033[33m%.4f\\033[0m lr=3e-4\\n", i, 1 / i }'`;
  const started = await core.client.invoke('run.start', {
    job: { name: 'ui-logs', run: `sleep 1 && ${awk}`, workspace: { workdir: work, exclude: [] } },
    pool: { provider: 'local', count: 1 },
  });
  if (!started.ok) throw new Error(started.error.message);
  const runId = started.value.id;
  let isOver = false;
  void core.waitRun(runId).then(() => (isOver = true));
  await live.page.locator(`.run-item[data-run-id="${runId}"]`).click();
  await live.page.getByTestId('log-pane').waitFor();

  if (values.profile) {
    await live.cdp.send('Profiler.enable');
    await live.cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await live.cdp.send('Profiler.start');
  }
  console.log('live: the Run view open while the job prints');
  await measure('live', live.page, live.heapMb, live.collectGarbage, () => isOver);
  console.log(
    `    backend emitted  ${fmt(emitted)} job lines in ${((lastEmit - firstEmit) / 1000).toFixed(1)} s = ${fmt(emitted / ((lastEmit - firstEmit) / 1000))} lines/s (log.lines events)`,
  );
  if (values.profile) {
    const { profile } = await live.cdp.send('Profiler.stop');
    writeFileSync(values.profile, JSON.stringify(profile));
    console.log(`    CPU profile      ${values.profile}`);
  }
  await live.page.close();

  // What one page of catching up costs the backend at the end of this log.
  const t = performance.now();
  await core.client.invoke('logs.read', {
    runId,
    nodeName: 'node-0',
    channel: 'agent',
    fromSeq: Math.max(1, LINES - 20_000),
    limit: 20_000,
  });
  console.log(
    `    logs.read        20 000 lines at seq ${fmt(Math.max(1, LINES - 20_000))}: ${(performance.now() - t).toFixed(0)} ms on the backend`,
  );

  console.log('finished: the same run opened afresh (the whole log read from disk)');
  const again = await openPage(browser, server.url);
  if (values.profile) {
    await again.cdp.send('Profiler.enable');
    await again.cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await again.cdp.send('Profiler.start');
  }
  await again.page.locator(`.run-item[data-run-id="${runId}"]`).click();
  await measure('finished', again.page, again.heapMb, again.collectGarbage, () => true);
  if (values.profile) {
    const { profile } = await again.cdp.send('Profiler.stop');
    const file = values.profile.replace(/(\.cpuprofile)?$/, '.finished.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    console.log(`    CPU profile      ${file}`);
  }
} finally {
  await browser.close();
  await server.close();
  await core.close();
  rmSync(root, { recursive: true, force: true });
}
