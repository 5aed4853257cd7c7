import { describe, expect, test } from 'vitest';
import { formatBytes, formatCount } from './human-units';
import { groupExclusions, previewWorkspace } from './preview';
import type { WorkspaceScan } from './scan';

const file = (path: string, size: number) => ({ path, size, mode: 0o644, mtimeMs: 0, ino: 0 });

function scanOf(sizes: Record<string, number>, extra: Partial<WorkspaceScan> = {}): WorkspaceScan {
  const files = Object.entries(sizes).map(([p, s]) => file(p, s));
  return {
    root: '/w',
    files,
    dirs: [],
    totalBytes: files.reduce((n, f) => n + f.size, 0),
    excluded: [],
    secrets: [],
    ...extra,
  };
}

describe('previewWorkspace', () => {
  test('counts, totals and the ten largest files, biggest first, ties by path', () => {
    const sizes: Record<string, number> = { 'tie-b': 500, 'tie-a': 500 };
    for (let i = 0; i < 12; i++) sizes[`f${String(i).padStart(2, '0')}`] = i * 10;
    const p = previewWorkspace(scanOf(sizes));
    expect(p.files).toBe(14);
    expect(p.bytes).toBe(1000 + 660);
    expect(p.largest).toHaveLength(10);
    expect(p.largest.slice(0, 3)).toEqual([
      { path: 'tie-a', size: 500 },
      { path: 'tie-b', size: 500 },
      { path: 'f11', size: 110 },
    ]);
    expect(p.largest.at(-1)).toEqual({ path: 'f04', size: 40 });
  });

  test('passes exclusions and secret warnings through', () => {
    const scan = scanOf(
      { '.env': 10 },
      {
        excluded: [{ path: 'data/', reason: 'exclude', rule: '/data', source: 'exclude' }],
        secrets: [{ path: '.env', pattern: '.env' }],
      },
    );
    const p = previewWorkspace(scan);
    expect(p.excluded).toEqual(scan.excluded);
    expect(p.secrets).toEqual([{ path: '.env', pattern: '.env' }]);
  });
});

describe('groupExclusions', () => {
  test('groups by reason in a fixed order and keeps each rule and source', () => {
    const groups = groupExclusions([
      { path: 'link', reason: 'special', rule: 'symlink' },
      { path: 'model.ckpt', reason: 'gitignore', rule: '*.ckpt', source: '.gitignore' },
      { path: 'data/', reason: 'exclude', rule: '/data', source: 'exclude' },
      { path: '.git/', reason: 'git' },
      { path: 'sub/x.log', reason: 'gitignore', rule: '*.log', source: 'sub/.gitignore' },
    ]);
    expect(groups.map((g) => [g.reason, g.entries.map((e) => e.path)])).toEqual([
      ['git', ['.git/']],
      ['gitignore', ['model.ckpt', 'sub/x.log']],
      ['exclude', ['data/']],
      ['special', ['link']],
    ]);
    expect(groups[1]!.entries[1]).toMatchObject({ rule: '*.log', source: 'sub/.gitignore' });
  });

  test('leaves empty groups out', () => {
    expect(groupExclusions([])).toEqual([]);
    expect(groupExclusions([{ path: '.git/', reason: 'git' }]).map((g) => g.reason)).toEqual([
      'git',
    ]);
  });
});

describe('human units', () => {
  test.each([
    [0, '0 B'],
    [999, '999 B'],
    [12_300_000, '12.3 MB'],
    [1_500_000_000, '1.5 GB'],
  ])('formatBytes(%i) = %s', (n, text) => expect(formatBytes(n)).toBe(text));

  test.each([
    [7, '7'],
    [4990, '4 990'],
    [1234567, '1 234 567'],
  ])('formatCount(%i) = %s', (n, text) => expect(formatCount(n)).toBe(text));
});
