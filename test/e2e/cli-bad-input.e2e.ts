import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, runCli, tempHome } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const h = tempHome('tender-bad-input-');
beforeAll(() => requireBuilt());
afterAll(() => h.cleanup());

const good = (extra = '') => `[job]\nname = "x"\nrun = "echo hi"\n${extra}`;

// Each bad input: the job file (or args), and what the one-line error must say.
const cases: { name: string; args: () => string[]; error: RegExp }[] = [
  {
    name: 'a missing job file',
    args: () => ['run', join(h.root, 'nope.toml')],
    error: /no such file.*nope\.toml/,
  },
  {
    name: 'invalid TOML, with line and column',
    args: () => ['run', writeJob(h.root, 'syntax', '[job]\nname = "x"\nrun = "echo hi\n')],
    error: /tender\.toml:3:\d+: /,
  },
  {
    name: 'an unknown key, named with its position',
    args: () => ['run', writeJob(h.root, 'unknown', good('outptus = ["a"]\n'))],
    error: /tender\.toml:4:1: .*outptus.*outputs/,
  },
  {
    name: 'a constraint that does not parse, with its position and the form',
    args: () => ['run', writeJob(h.root, 'constraint', good('constraints = ["gpu.vram 24GB"]\n'))],
    error:
      /tender\.toml:4:\d+: .*constraint "gpu\.vram 24GB": no operator; write it as <key> <op> <value>/,
  },
  {
    name: 'distributed on one node',
    args: () => ['run', writeJob(h.root, 'gang1', good('distributed = true\n'))],
    error: /tender\.toml:4:1: distributed = true needs count ≥ 2 \(the pool has 1 node\)/,
  },
  {
    name: 'a forward port out of range',
    args: () => ['run', writeJob(h.root, 'port', good('ports = [0]\n'))],
    error: /tender\.toml:4:\d+: job\.ports\[0\] must be at least 1/,
  },
  {
    name: 'an empty sweep axis',
    args: () => ['run', writeJob(h.root, 'axis', good('[sweep]\nLR = []\n'))],
    error: /tender\.toml:5:1: sweep axis LR is empty/,
  },
  {
    name: 'a --constraint that does not parse',
    args: () => ['run', writeJob(h.root, 'constraint-flag', good()), '--constraint', 'vram 24GB'],
    error: /--constraint: constraint "vram 24GB": no operator/,
  },
  {
    name: 'a workdir that is not a folder',
    args: () => {
      const dir = join(h.root, 'notdir');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'file.txt'), 'x');
      return [
        'run',
        writeJob(h.root, 'notdir', good('workspace = { workdir = "../notdir/file.txt" }\n')),
      ];
    },
    error: /workdir is not a folder: .*file\.txt/,
  },
  {
    name: 'an unknown provider in the file',
    args: () => ['run', writeJob(h.root, 'prov', good('[pool]\nprovider = "aws"\n'))],
    error: /unknown provider "aws"|provider.*aws/,
  },
  {
    name: 'an unknown provider on the command line',
    args: () => ['run', writeJob(h.root, 'flag', good()), '--provider', 'gcp'],
    error: /unknown provider "gcp"/,
  },
  {
    name: 'an output path escaping the workspace',
    args: () => ['run', writeJob(h.root, 'escape', good('outputs = ["../../etc/passwd"]\n'))],
    error: /outputs entry "\.\.\/\.\.\/etc\/passwd" points outside the workspace/,
  },
  {
    name: 'a bad --count',
    args: () => ['run', writeJob(h.root, 'count', good()), '--count', 'lots'],
    error: /--count must be a whole number/,
  },
  { name: 'an unknown command', args: () => ['launch'], error: /unknown command "launch"/ },
  { name: 'an unknown flag', args: () => ['status', '--colour'], error: /colour/ },
];

describe('bad input: one clear line, exit 2, nothing changed', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const r = await runCli(c.args(), { home: h.home });
      expect(r.code, r.stderr).toBe(2);
      const first = r.stderr.split('\n')[0]!;
      expect(first).toMatch(/^tender: /);
      expect(first).toMatch(c.error);
      expect(r.stdout).toBe('');
      // Nothing was opened or written: the data folder does not even exist.
      expect(existsSync(h.home)).toBe(false);
    });
  }

  it('an unknown run id for logs says so, with exit 2', async () => {
    const run = await runCli(['run', writeJob(h.root, 'ok', good())], { home: h.home });
    expect(run.code, run.stderr).toBe(0);
    const r = await runCli(['logs', 'r-doesnotexist'], { home: h.home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tender: no run r-doesnotexist/);
  });
});
