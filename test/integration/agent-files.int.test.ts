// The built agent's bulk commands: recv-workspace (tar in, atomic swap) and pack-outputs
// (tar out with a manifest), against GNU tar on the other side; and the stream marker.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeOutputsSpec } from '../../src-agent/outputs-spec';
import type {
  CommandError,
  OutputsHave,
  OutputsManifest,
  RecvWorkspaceOutput,
} from '../../src-agent/wire/protocol';
import { collect } from '../../src-agent/wire/tar/tar-test-helpers';
import { createTarWriter } from '../../src-agent/wire/tar/writer';
import { agentBundlePath, markedJson, runAgent, runProcess } from '../helpers/agent-bundle';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'tender-agent-files-'));
  dirs.push(d);
  return d;
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

function gnuTar(dir: string): Buffer {
  return execFileSync('tar', ['-c', '-C', dir, '.'], { maxBuffer: 64 * 1024 * 1024 });
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('recv-workspace', () => {
  it('materializes a tar made by GNU tar, then replaces it whole', async () => {
    const root = await tempDir();
    const D = join(root, 'node');
    const v1 = join(root, 'v1');
    const longName = `${'nested/'.repeat(12)}deep-file-with-a-long-name.py`;
    await writeTree(v1, {
      'train.py': 'print(1)\n',
      'data/a.csv': 'x,y\n1,2\n',
      [longName]: 'deep\n',
    });
    const first = await runAgent(['recv-workspace', '--dir', D], gnuTar(v1));
    expect(first.code, first.stderr).toBe(0);
    expect(markedJson<RecvWorkspaceOutput>(first.stdout)).toEqual({
      files: 3,
      bytes: 9 + 8 + 5,
      skipped: 0,
      mode: 'full',
      kept: 0,
      deleted: 0,
      manifest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await readFile(join(D, 'workspace', longName), 'utf8')).toBe('deep\n');

    const v2 = join(root, 'v2');
    await writeTree(v2, { 'train.py': 'print(2)\n' });
    expect((await runAgent(['recv-workspace', '--dir', D], gnuTar(v2))).code).toBe(0);
    expect(readdirSync(join(D, 'workspace'))).toEqual(['train.py']);
    // The old workspace is removed by a detached `rm -rf` (a big tree must not hold up the
    // push): it goes soon, not necessarily before the command returns.
    await expect
      .poll(() => readdirSync(D).filter((n) => n.startsWith('.workspace')), { timeout: 10_000 })
      .toEqual([]);
  });

  it('leaves the old workspace untouched when the tar is truncated', async () => {
    const root = await tempDir();
    const D = join(root, 'node');
    const src = join(root, 'src');
    await writeTree(src, { 'keep.txt': 'old\n' });
    expect((await runAgent(['recv-workspace', '--dir', D], gnuTar(src))).code).toBe(0);

    const big = join(root, 'big');
    await writeTree(big, { 'a.bin': 'a'.repeat(100_000), 'b.bin': 'b'.repeat(100_000) });
    const truncated = gnuTar(big).subarray(0, 150_000);
    const res = await runAgent(['recv-workspace', '--dir', D], truncated);
    expect(res.code).toBe(1);
    const { error } = markedJson<CommandError>(res.stdout);
    expect(error.message).toMatch(/truncated/);
    expect(error.path).toEqual(expect.any(String));
    expect(readdirSync(join(D, 'workspace'))).toEqual(['keep.txt']);
    expect(readdirSync(D).filter((n) => n.startsWith('.workspace'))).toEqual([]);

    const garbage = await runAgent(
      ['recv-workspace', '--dir', D],
      Buffer.from('this is not a tar'.repeat(100)),
    );
    expect(garbage.code).toBe(1);
    expect(readdirSync(join(D, 'workspace'))).toEqual(['keep.txt']);
  });

  it.each(['../escape.txt', '/etc/tender-test', 'ok/../../escape.txt'])(
    'refuses an entry named %s',
    async (name) => {
      const root = await tempDir();
      const D = join(root, 'node');
      const tar = createTarWriter();
      const bytes = collect(tar);
      await tar.addFile('fine.txt', { size: 2 }, Buffer.from('ok'));
      await tar.addFile(name, { size: 4 }, Buffer.from('evil'));
      await tar.finish();
      const res = await runAgent(['recv-workspace', '--dir', D], await bytes);
      expect(res.code).toBe(1);
      expect(markedJson<CommandError>(res.stdout).error).toMatchObject({
        code: 'unsafe_path',
        path: name,
      });
      expect(existsSync(join(D, 'workspace'))).toBe(false);
      expect(existsSync(join(root, 'escape.txt'))).toBe(false);
    },
  );
});

describe('pack-outputs', () => {
  it('sends declared paths and D/output with a manifest GNU tar can extract', async () => {
    const root = await tempDir();
    const D = join(root, 'node');
    await writeTree(join(D, 'workspace'), {
      'out/metrics.json': '{"loss":0.1}\n',
      'out/plots/a.png': 'PNG-a',
      'out/plots/sub/b.png': 'PNG-b',
      'out/ignored.txt': 'not declared',
      'secret-outside.txt': 'x',
    });
    await writeTree(join(D, 'output'), { 'model.bin': 'weights', 'logs/run.txt': 'done\n' });
    await writeFile(join(root, 'outside.txt'), 'outside');
    await symlink(join(root, 'outside.txt'), join(D, 'workspace', 'out', 'plots', 'leak.png'));
    const spec = encodeOutputsSpec({
      paths: ['out/metrics.json', 'out/plots/', 'nope.txt', '../outside.txt'],
    });

    const res = await runProcess('bash', [
      '-c',
      'echo motd noise; printf "no newline"; exec "$@"',
      'x',
      process.execPath,
      agentBundlePath(),
      'pack-outputs',
      '--dir',
      D,
      '--spec',
      spec,
    ]);
    expect(res.code, res.stderr).toBe(0);
    const marker = res.stdout.indexOf('TENDER-STREAM/1\n');
    expect(res.stdout.subarray(0, marker).toString()).toBe('motd noise\nno newline');
    const extracted = join(root, 'extracted');
    await mkdir(extracted);
    execFileSync('tar', ['-x', '-C', extracted], { input: res.stdout.subarray(marker + 16) });

    const manifest = JSON.parse(
      await readFile(join(extracted, '.tender/manifest.json'), 'utf8'),
    ) as OutputsManifest;
    expect(manifest.missing).toEqual(['nope.txt']);
    expect(manifest.refused).toEqual(['../outside.txt']);
    expect(manifest.files.map((f) => f.path).sort()).toEqual([
      '_output/logs/run.txt',
      '_output/model.bin',
      'out/metrics.json',
      'out/plots/a.png',
      'out/plots/sub/b.png',
    ]);
    for (const f of manifest.files) {
      const data = await readFile(join(extracted, f.path));
      expect(f.size).toBe(data.length);
      expect(f.sha256).toBe(sha256(data));
    }
    expect(existsSync(join(extracted, 'out/ignored.txt'))).toBe(false);
    expect(existsSync(join(extracted, 'out/plots/leak.png'))).toBe(false);
    const names = execFileSync('tar', ['-t'], { input: res.stdout.subarray(marker + 16) })
      .toString()
      .trim()
      .split('\n');
    expect(names.at(-1)).toBe('.tender/manifest.json');
  });

  it('sends only the manifest when nothing exists', async () => {
    const D = join(await tempDir(), 'node');
    const res = await runAgent([
      'pack-outputs',
      '--dir',
      D,
      '--spec',
      encodeOutputsSpec({ paths: ['a.txt'] }),
    ]);
    expect(res.code).toBe(0);
    const tarBytes = res.stdout.subarray(res.stdout.indexOf('TENDER-STREAM/1\n') + 16);
    const manifest = JSON.parse(
      execFileSync('tar', ['-xO', '.tender/manifest.json'], { input: tarBytes }).toString(),
    );
    expect(manifest).toEqual({ files: [], missing: ['a.txt'], refused: [] });
  });

  it('with --have-stdin sends only what changed: a file of the same size and mtime is kept, unless it is seconds old', async () => {
    const D = join(await tempDir(), 'node');
    await writeTree(join(D, 'output'), {
      'same.bin': 'weights',
      'grown.txt': 'a',
      'fresh.txt': 'b',
    });
    const old = new Date(Date.now() - 60_000);
    for (const f of ['same.bin', 'grown.txt']) await utimes(join(D, 'output', f), old, old);
    // As the agent reads it (a Date: whole milliseconds).
    const mtime = async (f: string) => (await stat(join(D, 'output', f))).mtime.getTime();
    const have: OutputsHave = {
      '_output/same.bin': [7, await mtime('same.bin')],
      '_output/grown.txt': [99, await mtime('grown.txt')], // the size changed
      '_output/fresh.txt': [1, await mtime('fresh.txt')], // written just now: may change again
      '_output/gone.txt': [1, 1],
    };
    const spec = encodeOutputsSpec({ paths: [] });
    const res = await runAgent(
      ['pack-outputs', '--dir', D, '--spec', spec, '--have-stdin'],
      Buffer.from(JSON.stringify(have)),
    );
    expect(res.code, res.stderr).toBe(0);
    const tarBytes = res.stdout.subarray(res.stdout.indexOf('TENDER-STREAM/1\n') + 16);
    const manifest = JSON.parse(
      execFileSync('tar', ['-xO', '.tender/manifest.json'], { input: tarBytes }).toString(),
    ) as OutputsManifest;
    expect(manifest.kept).toEqual([
      { path: '_output/same.bin', size: 7, mtimeMs: await mtime('same.bin') },
    ]);
    expect(manifest.files.map((f) => f.path).sort()).toEqual([
      '_output/fresh.txt',
      '_output/grown.txt',
    ]);
    expect(manifest.files.every((f) => typeof f.mtimeMs === 'number')).toBe(true);
    const names = execFileSync('tar', ['-t'], { input: tarBytes }).toString();
    expect(names).not.toContain('same.bin'); // not sent
  });

  it('rejects a spec that is not base64url JSON', async () => {
    const res = await runAgent(['pack-outputs', '--dir', await tempDir(), '--spec', 'not-json']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('--spec');
  });
});
