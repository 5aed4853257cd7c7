// Where a secret must never be: any file under a folder (the data folder: ledger, logs,
// receipts), and any process's command line while a run goes on. A secret is found by its
// pieces (`FRAGMENT` characters in a row), so a cut or an escape still shows.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const FRAGMENT = 6;

export function fragmentsIn(secret: string, text: string): string[] {
  const found = new Set<string>();
  for (let i = 0; i + FRAGMENT <= secret.length; i++) {
    const piece = secret.slice(i, i + FRAGMENT);
    if (text.includes(piece)) found.add(piece);
  }
  return [...found];
}

/** `path: piece` for each file under `dir` that holds a piece of `secret`. */
export function leaksUnder(dir: string, secret: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .flatMap((f) =>
      fragmentsIn(secret, readFileSync(f, 'latin1')).map((p) => `${relative(dir, f)}: ${p}`),
    );
}

/** Every process's command line that holds a piece of `secret`, polled until stopped. */
export function watchCommandLines(secret: string): { stop: () => string[] } {
  const seen = new Set<string>();
  const poll = () => {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const line = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
        if (fragmentsIn(secret, line).length > 0) seen.add(line.replaceAll('\0', ' '));
      } catch {
        // it ended meanwhile
      }
    }
  };
  const timer = setInterval(poll, 25);
  return {
    stop: () => {
      clearInterval(timer);
      poll();
      return [...seen];
    },
  };
}
