#!/usr/bin/env node
// Time from `tender run` starting to the first line of the job's own output on the local
// provider (lease, bootstrap, agent start, workspace push and run start all included).
// Prints the median of several runs beside two baselines measured in the same process:
// the CLI's bare start-up (`tender --version`) and spawning the job command directly.
// Usage: node bench/first-log.mjs [runs=9]      (needs `npm run build` first)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const RUNS = Number(process.argv[2] ?? 9);
const CLI = resolve(import.meta.dirname, '..', 'out', 'cli', 'tender.js');
const root = mkdtempSync(join(tmpdir(), 'tender-bench-first-log-'));
const home = join(root, 'home');
const jobDir = join(root, 'job');
mkdirSync(jobDir, { recursive: true });
writeFileSync(join(jobDir, 'tender.toml'), '[job]\nname = "first-log"\nrun = "echo first-line"\n');

/** ms from spawn until `needle` appears on stdout, and until the process exits. */
function timeTo(cmd, args, needle, env = {}) {
  return new Promise((done, fail) => {
    const t0 = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - t0) / 1e6;
    const child = spawn(cmd, args, {
      env: { ...process.env, TENDER_HOME: home, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let first = null;
    let err = '';
    child.stdout.on('data', (c) => {
      out += c;
      if (first === null && out.includes(needle)) first = ms();
    });
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (code) => {
      if (code !== 0 || first === null)
        return fail(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-500)}`));
      done({ first, total: ms() });
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const fmt = (x) => `${x.toFixed(0)} ms`;

try {
  await timeTo(process.execPath, [CLI, 'run', join(jobDir, 'tender.toml')], 'first-line'); // warm caches
  const tender = [];
  const cliStart = [];
  const direct = [];
  for (let i = 0; i < RUNS; i++) {
    tender.push(
      await timeTo(process.execPath, [CLI, 'run', join(jobDir, 'tender.toml')], 'first-line'),
    );
    cliStart.push(await timeTo(process.execPath, [CLI, '--version'], '.'));
    direct.push(await timeTo('bash', ['-c', 'echo first-line'], 'first-line'));
  }
  const m = median(tender.map((r) => r.first));
  console.log(`first-log (local provider, ${RUNS} runs, median):`);
  console.log(`  tender run → first job line   ${fmt(m)}   (target < 1000 ms)`);
  console.log(
    `  tender run → exit (incl. collect + verified teardown)   ${fmt(median(tender.map((r) => r.total)))}`,
  );
  console.log(`  baseline: tender --version    ${fmt(median(cliStart.map((r) => r.total)))}`);
  console.log(`  baseline: bash -c echo         ${fmt(median(direct.map((r) => r.first)))}`);
  console.log(
    `  ratio first-log / CLI start-up: ${(m / median(cliStart.map((r) => r.total))).toFixed(1)}×`,
  );
  console.log(m < 1000 ? 'PASS: under 1 s' : 'MISS: over 1 s');
} finally {
  rmSync(root, { recursive: true, force: true });
}
