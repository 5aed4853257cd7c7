import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BadInputError } from '../../base/bad-input-error';
import { scanWorkspace, type WorkspaceScan } from './scan';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tender-scan-'));
});

afterEach(async () => {
  await chmod(path.join(root, 'locked'), 0o755).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

/** Writes files (path → content); a path ending in / makes an empty folder. */
async function tree(files: Record<string, string>): Promise<void> {
  const entries = Object.entries(files).map(([rel, content]) => ({
    abs: path.join(root, rel),
    content: rel.endsWith('/') ? undefined : content,
  }));
  const dirs = new Set(entries.map((e) => (e.content === undefined ? e.abs : path.dirname(e.abs))));
  for (const dir of dirs) await mkdir(dir, { recursive: true });
  await Promise.all(entries.map((e) => e.content !== undefined && writeFile(e.abs, e.content)));
}

const paths = (scan: WorkspaceScan) => scan.files.map((f) => f.path);

describe('scanWorkspace', () => {
  test('lists files and folders sorted, with sizes, modes and the total', async () => {
    await tree({ 'b.txt': 'bb', 'a/z.py': 'zzz', 'a/y.py': 'y', 'empty/': '', 'run.sh': 'echo' });
    await chmod(path.join(root, 'run.sh'), 0o755);
    const scan = await scanWorkspace(root, []);
    expect(scan.root).toBe(root);
    expect(paths(scan)).toEqual(['a/y.py', 'a/z.py', 'b.txt', 'run.sh']);
    expect(scan.dirs).toEqual(['a', 'empty']);
    expect(scan.totalBytes).toBe(10);
    expect(scan.files.find((f) => f.path === 'run.sh')).toMatchObject({ size: 4, mode: 0o700 });
    expect(scan.files.find((f) => f.path === 'b.txt')).toMatchObject({ mode: 0o600 });
    expect(scan.files[0]!.mtimeMs).toBeGreaterThan(0);
    expect(scan.excluded).toEqual([]);
    expect(scan.secrets).toEqual([]);
  });

  test('leaves out .git folders and files at any depth', async () => {
    await tree({ '.git/HEAD': 'ref', 'lib/.git': 'gitdir: ../.git/modules/lib', 'lib/x.py': '' });
    const scan = await scanWorkspace(root, []);
    expect(paths(scan)).toEqual(['lib/x.py']);
    expect(scan.excluded).toEqual([
      { path: '.git/', reason: 'git' },
      { path: 'lib/.git', reason: 'git' },
    ]);
  });

  test('applies exclude patterns: /x anchors at the root, *.y matches anywhere', async () => {
    await tree({
      'data/a.bin': 'a',
      'data/b.bin': 'b',
      'src/data/keep.txt': 'k',
      'model.ckpt': 'm',
      'src/old.ckpt': 'o',
      'src/train.py': 't',
    });
    const scan = await scanWorkspace(root, ['/data', '*.ckpt']);
    expect(paths(scan)).toEqual(['src/data/keep.txt', 'src/train.py']);
    expect(scan.excluded).toEqual([
      { path: 'data/', reason: 'exclude', rule: '/data', source: 'exclude' },
      { path: 'model.ckpt', reason: 'exclude', rule: '*.ckpt', source: 'exclude' },
      { path: 'src/old.ckpt', reason: 'exclude', rule: '*.ckpt', source: 'exclude' },
    ]);
    expect(scan.dirs).not.toContain('data');
  });

  test('applies .gitignore files at every level, each to its own subtree, with negation', async () => {
    await tree({
      '.gitignore': '*.log\nbuild/\n',
      'app.log': '',
      'build/out.o': '',
      'sub/.gitignore': '*.tmp\n!keep.log\n',
      'sub/keep.log': 'kept',
      'sub/drop.log': '',
      'sub/x.tmp': '',
      'other/y.tmp': 'y',
    });
    const scan = await scanWorkspace(root, []);
    expect(paths(scan)).toEqual(['.gitignore', 'other/y.tmp', 'sub/.gitignore', 'sub/keep.log']);
    expect(scan.excluded).toEqual([
      { path: 'app.log', reason: 'gitignore', rule: '*.log', source: '.gitignore' },
      { path: 'build/', reason: 'gitignore', rule: 'build/', source: '.gitignore' },
      { path: 'sub/drop.log', reason: 'gitignore', rule: '*.log', source: '.gitignore' },
      { path: 'sub/x.tmp', reason: 'gitignore', rule: '*.tmp', source: 'sub/.gitignore' },
    ]);
  });

  test('a nested .gitignore anchors its /patterns at its own folder', async () => {
    await tree({ 'sub/.gitignore': '/cache\n', 'sub/cache/a': '', 'cache/b': 'b' });
    const scan = await scanWorkspace(root, []);
    expect(paths(scan)).toEqual(['cache/b', 'sub/.gitignore']);
    expect(scan.excluded).toEqual([
      { path: 'sub/cache/', reason: 'gitignore', rule: '/cache', source: 'sub/.gitignore' },
    ]);
  });

  test('the job exclude list wins over .gitignore, and can re-include with !', async () => {
    await tree({ '.gitignore': '*.ckpt\n', 'best.ckpt': 'b', 'last.ckpt': 'l', 'notes.md': 'n' });
    const scan = await scanWorkspace(root, ['!best.ckpt', 'notes.md']);
    expect(paths(scan)).toEqual(['.gitignore', 'best.ckpt']);
    expect(scan.excluded.map((e) => [e.path, e.reason])).toEqual([
      ['last.ckpt', 'gitignore'],
      ['notes.md', 'exclude'],
    ]);
  });

  test('reports an excluded folder once, not each file in it', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`data/shard-${i}/part.bin`] = 'x';
    await tree({ ...files, 'train.py': '' });
    const scan = await scanWorkspace(root, ['data/']);
    expect(scan.excluded).toEqual([
      { path: 'data/', reason: 'exclude', rule: 'data/', source: 'exclude' },
    ]);
    expect(paths(scan)).toEqual(['train.py']);
  });

  test('flags files that look like credentials, without excluding them', async () => {
    await tree({
      '.env': 'A=1',
      'conf/.env.local': '',
      'keys/id_rsa': '',
      'keys/id_rsa.pub': '',
      'keys/id_ed25519': '',
      'tls/server.pem': '',
      'tls/server.key': '',
      'Credentials.json': '',
      '.netrc': '',
      '.npmrc': '',
      'cert.p12': '',
      'environment.py': '',
      'ignored/.env': '',
    });
    const scan = await scanWorkspace(root, ['ignored/']);
    expect(scan.secrets).toEqual([
      { path: '.env', pattern: '.env' },
      { path: '.netrc', pattern: '.netrc' },
      { path: '.npmrc', pattern: '.npmrc' },
      { path: 'Credentials.json', pattern: 'credentials*' },
      { path: 'cert.p12', pattern: '*.p12' },
      { path: 'conf/.env.local', pattern: '.env.*' },
      { path: 'keys/id_ed25519', pattern: 'id_ed25519' },
      { path: 'keys/id_rsa', pattern: 'id_rsa' },
      { path: 'tls/server.key', pattern: '*.key' },
      { path: 'tls/server.pem', pattern: '*.pem' },
    ]);
    expect(paths(scan)).toContain('.env');
  });

  test('skips symlinks and sockets as special, wherever they point', async () => {
    await tree({ 'real.txt': 'r', 'dir/a.txt': 'a' });
    await symlink(path.join(root, 'real.txt'), path.join(root, 'link-in.txt'));
    await symlink('/etc', path.join(root, 'link-out'));
    await symlink(path.join(root, 'dir'), path.join(root, 'link-dir'));
    await symlink(path.join(root, 'missing'), path.join(root, 'dangling'));
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, 'agent.sock'), resolve));
    try {
      const scan = await scanWorkspace(root, []);
      expect(paths(scan)).toEqual(['dir/a.txt', 'real.txt']);
      expect(scan.excluded).toEqual([
        { path: 'agent.sock', reason: 'special', rule: 'socket' },
        { path: 'dangling', reason: 'special', rule: 'symlink' },
        { path: 'link-dir', reason: 'special', rule: 'symlink' },
        { path: 'link-in.txt', reason: 'special', rule: 'symlink' },
        { path: 'link-out', reason: 'special', rule: 'symlink' },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  // Root reads everything, so this can only be observed as an ordinary user.
  test.skipIf(process.getuid?.() === 0)('reports unreadable entries as special', async () => {
    await tree({ 'locked/a.txt': 'a', 'secret.txt': 's', 'ok.txt': 'o' });
    await chmod(path.join(root, 'locked'), 0o000);
    await chmod(path.join(root, 'secret.txt'), 0o000);
    const scan = await scanWorkspace(root, []);
    expect(paths(scan)).toEqual(['ok.txt']);
    expect(scan.excluded).toEqual([
      { path: 'locked/', reason: 'special', rule: 'EACCES' },
      { path: 'secret.txt', reason: 'special', rule: 'unreadable' },
    ]);
  });

  test('gives the same scan twice, and handles thousands of files', async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 50; d++) {
      for (let f = 0; f < 110; f++) files[`d${d}/f${f}.txt`] = `${d}-${f}`;
    }
    await tree({ ...files, '.gitignore': 'd1*/\n' });
    const first = await scanWorkspace(root, []);
    const second = await scanWorkspace(root, []);
    expect(second).toEqual(first);
    // d1 and d10..d19 are ignored: 39 folders of 110 files remain, plus the .gitignore.
    expect(first.files).toHaveLength(39 * 110 + 1);
    expect(first.excluded).toHaveLength(11);
    const sorted = [...paths(first)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(paths(first)).toEqual(sorted);
    expect(first.totalBytes).toBe(first.files.reduce((sum, f) => sum + f.size, 0));
  });

  test('a workdir that does not exist is bad input', async () => {
    const missing = path.join(root, 'nope');
    await expect(scanWorkspace(missing, [])).rejects.toThrow(
      new BadInputError(`workdir does not exist: ${missing}`),
    );
  });
});
