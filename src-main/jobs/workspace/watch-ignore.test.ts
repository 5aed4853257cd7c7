import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { scanWorkspace } from './scan';
import { WorkspaceIgnore } from './watch-ignore';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'tender-watch-ignore-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function tree(files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
}

const EXCLUDE = ['*.ckpt', '/data/', '!keep.ckpt'];
const TREE = {
  '.gitignore': 'build/\n*.log\n!important.log\n',
  '.git/HEAD': 'ref',
  'train.py': '',
  'model.ckpt': '',
  'keep.ckpt': '',
  'data/a.bin': '',
  'sub/data/b.bin': '',
  'build/out.o': '',
  'sub/build/x.o': '',
  'run.log': '',
  'important.log': '',
  'sub/.gitignore': 'secret.txt\n',
  'sub/secret.txt': '',
  'sub/ok.txt': '',
  'other/secret.txt': '',
  'lib/.git': 'gitdir: ../.git/modules/lib',
};

describe('WorkspaceIgnore', () => {
  test('ignores exactly what a scan leaves out', async () => {
    await tree(TREE);
    const scan = await scanWorkspace(root, EXCLUDE);
    const ignore = new WorkspaceIgnore(root, EXCLUDE);
    const isIgnored = (rel: string) => ignore.isIgnored(path.join(root, rel));

    for (const f of scan.files) expect([f.path, isIgnored(f.path)]).toEqual([f.path, false]);
    for (const d of scan.dirs) expect([d, isIgnored(d)]).toEqual([d, false]);
    for (const e of scan.excluded) {
      const rel = e.path.replace(/\/$/, '');
      expect([rel, isIgnored(rel)]).toEqual([rel, true]);
    }
    // Inside an excluded folder everything is excluded, as the scan never enters it.
    expect(isIgnored('build/out.o')).toBe(true);
    expect(isIgnored('.git/HEAD')).toBe(true);
    expect(scan.files.map((f) => f.path)).toContain('important.log');
  });

  test('reads a changed .gitignore again once told', async () => {
    await tree({ '.gitignore': '', 'a.tmp': '' });
    const ignore = new WorkspaceIgnore(root, []);
    expect(ignore.isIgnored(path.join(root, 'a.tmp'))).toBe(false);
    await writeFile(path.join(root, '.gitignore'), '*.tmp\n');
    ignore.forget(path.join(root, '.gitignore'));
    expect(ignore.isIgnored(path.join(root, 'a.tmp'))).toBe(true);
  });

  test('never ignores the root, always what lies outside it', () => {
    const ignore = new WorkspaceIgnore(root, ['*']);
    expect(ignore.isIgnored(root)).toBe(false);
    expect(ignore.isIgnored(path.join(root, '..', 'elsewhere'))).toBe(true);
  });
});
