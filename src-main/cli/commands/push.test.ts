import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { cliContext } from '../context';
import { pushCommand } from './push';

let dir: string;
let stdout: string;
let stderr: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tender-push-cli-'));
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

async function workspace(): Promise<string> {
  const files: Record<string, string> = {
    'train.py': 'print(1)\n',
    'data/big.bin': 'x'.repeat(5000),
    'data/raw/skip.bin': 'raw',
    'model.ckpt': 'ckpt',
    '.env': 'TOKEN=1\n',
    '.gitignore': '*.ckpt\n',
    '.git/HEAD': 'ref\n',
  };
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  const job = path.join(dir, 'tender.toml');
  await writeFile(
    job,
    '[job]\nname = "t"\nrun = "python train.py"\n' +
      'env = { HF = { secret = true, from_env = "TENDER_TEST_UNSET_VAR" } }\n' +
      '[job.workspace]\nexclude = ["/data/raw"]\n',
  );
  return job;
}

const ctx = () => cliContext({ TENDER_HOME: path.join(dir, 'home') });

describe('tender push --dry-run', () => {
  test('prints counts, exclusions by reason with their rule, the largest files and secrets', async () => {
    const job = await workspace();
    expect(await pushCommand(['--dry-run', job], ctx())).toBe(0);
    expect(stdout).toContain(`workspace ${dir}`);
    // train.py, data/big.bin, .env, .gitignore, tender.toml
    expect(stdout).toMatch(/5 files, 5\.\d kB would be pushed/);
    expect(stdout).toMatch(/the \.git folder \(never pushed\) \(1\)\n {4}\.git\/\n/);
    expect(stdout).toMatch(
      /ignored by \.gitignore \(1\)\n\s+model\.ckpt\s+\*\.ckpt {2}\(\.gitignore\)/,
    );
    expect(stdout).toMatch(
      /left out by the job's exclude \(1\)\n\s+data\/raw\/\s+\/data\/raw {2}\(exclude\)/,
    );
    expect(stdout).toMatch(/largest files:\n\s+5\.0 kB\s+data\/big\.bin/);
    expect(stderr).toMatch(
      /WARNING: \.env looks like a secret \(matches \.env\) and WILL be pushed/,
    );
  });

  test('--json prints the preview as data', async () => {
    const job = await workspace();
    expect(await pushCommand(['--dry-run', '--json', job], ctx())).toBe(0);
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      root: dir,
      files: 5,
      secrets: [{ path: '.env', pattern: '.env' }],
      largest: expect.arrayContaining([{ path: 'data/big.bin', size: 5000 }]),
    });
    expect(out.excluded).toContainEqual({
      path: 'model.ckpt',
      reason: 'gitignore',
      rule: '*.ckpt',
      source: '.gitignore',
    });
  });

  test('without --dry-run it points at run and sync and exits 2', async () => {
    const job = await workspace();
    expect(await pushCommand([job], ctx())).toBe(2);
    expect(stderr).toMatch(/pushed as part of `tender run`/);
    expect(stdout).toBe('');
  });
});
