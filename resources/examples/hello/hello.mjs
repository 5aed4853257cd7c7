// Tender's example workload for nodes without Python: the same program as hello.py, which
// prints the same lines and writes the same files for the same SEED. Node's standard library
// only, so it runs wherever the Tender agent runs.
import fs from 'node:fs';
import path from 'node:path';

const [GREEN, YELLOW, RED, DIM, RESET] = ['\x1b[32m', '\x1b[33m', '\x1b[31m', '\x1b[2m', '\x1b[0m'];
const out = [];
const print = (line) => out.push(`${line}\n`);
const warn = (text) => process.stderr.write(text);

/** The same generator as hello.py, so both runtimes draw the same numbers. */
function xorshift32(seed) {
  let x = Math.imul(seed, 2654435761 | 0) >>> 0 || 1;
  return () => {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    return x / 4294967296;
  };
}

function intEnv(name, fallback) {
  const raw = process.env[name] ?? '';
  if (raw === '') return fallback;
  if (/^[-+]?\d+$/.test(raw.trim())) return Number.parseInt(raw, 10);
  warn(`${YELLOW}warning: ${name}='${raw}' is not an integer; using ${fallback}${RESET}\n`);
  return fallback;
}

const pad = (n, width) => String(n).padStart(width, '0');

function main() {
  const seed = intEnv('SEED', 0);
  const steps = intEnv('TENDER_PARAM_STEPS', 3000);
  const failAt = intEnv('TENDER_PARAM_FAIL_AT_STEP', 0);
  const lr = process.env.TENDER_PARAM_LR ?? '3e-4';
  const outDir = path.join(process.env.TENDER_WORKSPACE ?? '.', 'out');
  fs.mkdirSync(outDir, { recursive: true });

  print(`${GREEN}hello from tender${RESET} (node ${process.versions.node})`);
  print(`job ${process.env.TENDER_JOB_ID ?? '-'}, attempt ${process.env.TENDER_ATTEMPT ?? '-'}`);
  print(`seed ${seed}, steps ${steps}, lr ${lr}`);
  for (const name of Object.keys(process.env)
    .filter((k) => k.startsWith('TENDER_PARAM_'))
    .sort()) {
    print(`${DIM}param ${name} = ${process.env[name]}${RESET}`);
  }

  const next = xorshift32(seed);
  const curve = ['step,loss'];
  let loss = 0;
  for (let step = 1; step <= steps; step++) {
    loss = 2.5 / (1 + step * 0.01) + (next() - 0.5) * 0.05;
    if (step % 100 === 0) curve.push(`${step},${loss.toFixed(6)}`);
    if (step % 60 === 0) {
      const done = Math.floor((step * 30) / steps);
      const percent = String(Math.floor((step * 100) / steps)).padStart(3, ' ');
      flush();
      warn(`\r[${'#'.repeat(done)}${'.'.repeat(30 - done)}] ${percent}%`);
    }
    if (step % 500 === 0) {
      print(`${GREEN}step ${pad(step, 5)}/${steps} loss ${loss.toFixed(4)} checkpoint${RESET}`);
    } else {
      print(`step ${pad(step, 5)}/${steps} loss ${loss.toFixed(4)}`);
    }
    if (step === failAt) break;
  }
  flush();
  warn('\n');

  const failed = failAt > 0 && failAt <= steps;
  const doneSteps = failed ? failAt : steps;
  fs.writeFileSync(
    path.join(outDir, 'metrics.json'),
    `{"loss": ${loss.toFixed(6)}, "steps": ${doneSteps}, "seed": ${seed}, "failed": ${failed}}\n`,
  );
  fs.writeFileSync(path.join(outDir, 'loss.csv'), `${curve.join('\n')}\n`);

  if (failed) {
    warn(`${RED}error: loss diverged at step ${failAt} (TENDER_PARAM_FAIL_AT_STEP)${RESET}\n`);
    return 3;
  }
  print(`${GREEN}done${RESET}: loss ${loss.toFixed(4)} after ${steps} steps`);
  flush();
  return 0;
}

// Lines are batched between progress updates: one write per line would make Node slower
// than the program it imitates, and the order of stdout and stderr is kept all the same.
function flush() {
  if (out.length > 0) fs.writeSync(1, out.splice(0).join(''));
}

process.exitCode = main();
