import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes a job folder with a tender.toml and returns the toml path. */
export function writeJob(
  root: string,
  name: string,
  toml: string,
  files: Record<string, string> = {},
): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [rel, body] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), body);
  }
  const file = join(dir, 'tender.toml');
  writeFileSync(file, toml);
  return file;
}

/** A job that prints `tick 1` … `tick N`, one every `intervalS`, tagged with `marker` so a
 *  test can find its processes; writes out/ticks.txt as it goes. */
export function tickerJob(
  root: string,
  opts: { ticks: number; intervalS: number; marker: string },
): string {
  return writeJob(
    root,
    `ticker-${opts.marker}`,
    `[job]
name = "ticker"
run = "i=0; while [ $i -lt ${opts.ticks} ]; do i=$((i+1)); echo tick $i; echo tick $i >> out/ticks.txt; sleep ${opts.intervalS}; done # ${opts.marker}"
setup = "mkdir -p out"
outputs = ["out/ticks.txt"]
`,
    { 'README.txt': 'a ticking job\n' },
  );
}
