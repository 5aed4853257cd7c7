import { fork, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { FakeVast } from '../fakes/vast';
import type { FakeRunpod } from '../fakes/runpod';
import type { AppChildConfig } from './app-child';

const REPO = resolve(import.meta.dirname, '..', '..');
const OUT = join(REPO, 'out', 'test', 'app-child.mjs');
let built: Promise<unknown> | null = null;

export interface AppProcess {
  child: ChildProcess;
  /** Every JSON line the app printed so far. */
  lines: Record<string, unknown>[];
  /** Resolves with the first line (already printed or to come) that `pred` accepts. */
  waitFor(
    pred: (l: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): void;
}

/** Runs test/helpers/app-child.ts as its own process (bundled once per test file), feeding it
 *  the fake's node users as instances appear. */
export async function startAppProcess(
  fake: FakeVast | FakeRunpod,
  config: AppChildConfig,
): Promise<AppProcess> {
  built ??= build({
    entryPoints: [join(REPO, 'test', 'helpers', 'app-child.ts')],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  await built;
  const child = fork(OUT, [JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const lines: Record<string, unknown>[] = [];
  const waiters: {
    pred: (l: Record<string, unknown>) => boolean;
    resolve: (l: Record<string, unknown>) => void;
  }[] = [];
  let carry = '';
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  child.stdout!.on('data', (c: Buffer) => {
    carry += c.toString();
    let nl: number;
    while ((nl = carry.indexOf('\n')) >= 0) {
      const text = carry.slice(0, nl);
      carry = carry.slice(nl + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      lines.push(line);
      for (const w of waiters.splice(0)) {
        if (w.pred(line)) w.resolve(line);
        else waiters.push(w);
      }
    }
  });
  const sent = new Set<string>();
  const nodes = () =>
    'instances' in fake.state
      ? fake.state.instances().map((i) => ({ id: String(i.id), user: i.node.user }))
      : (fake as FakeRunpod).state.pods().map((p) => ({ id: p.id, user: p.node.user }));
  const feed = setInterval(() => {
    for (const n of nodes()) {
      if (sent.has(n.id) || !child.connected) continue;
      sent.add(n.id);
      child.send({ instanceId: n.id, user: n.user });
    }
  }, 20);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => {
      clearInterval(feed);
      r({ code, signal });
    }),
  );
  return {
    child,
    lines,
    exited,
    waitFor(pred, timeoutMs = 60_000) {
      const found = lines.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((res, rej) => {
        const t = setTimeout(
          () =>
            rej(new Error(`app process: nothing matched in ${timeoutMs} ms; stderr:\n${stderr}`)),
          timeoutMs,
        );
        waiters.push({
          pred,
          resolve: (l) => {
            clearTimeout(t);
            res(l);
          },
        });
      });
    },
    stop() {
      clearInterval(feed);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
