import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pullIndexFile } from '../outputs/pull-index';
import { CheckpointGenerations } from './generations';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function store(keep?: number): CheckpointGenerations {
  const root = join(mkdtempSync(join(tmpdir(), 'tender-gen-')), 'checkpoints');
  roots.push(root);
  return new CheckpointGenerations(root, keep);
}

/** A pull that landed `files` checkpoint files in its folder, committed. */
function land(s: CheckpointGenerations, files: number, attempt = 0, at = 1000) {
  const g = s.begin();
  mkdirSync(join(g.dir, 'ckpt'), { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(g.dir, 'ckpt', `f${i}`), `step ${i}`);
  return { g, outcome: s.commit(g.n, { attempt, at, files, bytes: files * 6 }) };
}

describe('checkpoint generations', () => {
  it('a new store has nothing to restore, and the first pull has no baseline', () => {
    const s = store();
    expect(s.restoreSource()).toBeNull();
    const g = s.begin();
    expect(g.n).toBe(1);
    expect(g.base).toBeNull();
    expect(existsSync(g.dir)).toBe(false);
  });

  it('a folder an earlier Tender pulled into (one index at the root) is the first baseline', () => {
    const s = store();
    writeFileSync(pullIndexFile(s.root), JSON.stringify({ version: 1, files: {} }));
    expect(s.begin().base).toBe(s.root);
  });

  it('a complete pull with files becomes the restore source and the next baseline', () => {
    const s = store();
    const { g, outcome } = land(s, 2, 0, 5000);
    expect(outcome.kind).toBe('kept');
    expect(s.restoreSource()).toMatchObject({ n: g.n, attempt: 0, at: 5000, files: 2 });
    expect(s.begin().base).toBe(g.dir);
  });

  it('an empty pull (a new node before its restore) after one with files is dropped', () => {
    const s = store();
    const first = land(s, 1, 0);
    const { g, outcome } = land(s, 0, 1);
    expect(outcome).toMatchObject({ kind: 'dropped', restoreSource: { n: first.g.n } });
    expect(existsSync(g.dir)).toBe(false);
    expect(s.restoreSource()?.n).toBe(first.g.n);
  });

  it('an empty first pull is kept (nothing to lose) and restores nothing', () => {
    const s = store();
    expect(land(s, 0).outcome.kind).toBe('kept');
    expect(s.restoreSource()).toBeNull();
    expect(land(s, 1).outcome.kind).toBe('kept');
    expect(s.restoreSource()?.files).toBe(1);
  });

  it('a failed pull leaves no trace and changes nothing', () => {
    const s = store();
    const first = land(s, 1);
    const g = s.begin();
    mkdirSync(g.dir, { recursive: true });
    writeFileSync(join(g.dir, 'half'), 'x');
    s.abandon(g.n);
    expect(existsSync(g.dir)).toBe(false);
    expect(s.restoreSource()?.n).toBe(first.g.n);
  });

  it('a folder a crash left without its completion record is never restored, and goes', () => {
    const s = store();
    const first = land(s, 1);
    const crashed = s.begin();
    mkdirSync(join(crashed.dir, 'ckpt'), { recursive: true });
    const reopened = new CheckpointGenerations(s.root);
    expect(reopened.restoreSource()?.n).toBe(first.g.n);
    land(reopened, 1);
    expect(existsSync(crashed.dir)).toBe(false);
  });

  it('overlapping pulls land in folders of their own; the later-begun one wins', () => {
    const s = store();
    const a = s.begin();
    const b = s.begin();
    expect(a.n).not.toBe(b.n);
    for (const g of [b, a]) {
      mkdirSync(join(g.dir, 'ckpt'), { recursive: true });
      writeFileSync(join(g.dir, 'ckpt', 'step'), String(g.n));
    }
    s.commit(b.n, { attempt: 0, at: 2, files: 1, bytes: 1 });
    s.commit(a.n, { attempt: 0, at: 3, files: 1, bytes: 1 });
    expect(s.restoreSource()?.n).toBe(b.n);
  });

  it('keeps the newest few generations, numbering on after a restart', () => {
    const s = store(3);
    for (let i = 0; i < 5; i++) land(s, 1, 0, i);
    expect(s.list().map((g) => g.n)).toEqual([3, 4, 5]);
    const reopened = new CheckpointGenerations(s.root, 3);
    expect(reopened.begin().n).toBe(6);
    expect(readdirSync(s.root).filter((n) => n.endsWith('.json'))).toHaveLength(3);
  });
});
