import { describe, expect, it } from 'vitest';
import { outputsNote, pushProgressNote, pushResultNote, pushStartNote } from './transfer-notes';
import type { SyncResult } from '../workspace/sync';

const sync = (r: Partial<SyncResult>): SyncResult => ({
  mode: 'delta',
  filesSent: 0,
  bytesSent: 0,
  deleted: 0,
  unchanged: 0,
  elapsedMs: 0,
  streamBytes: 0,
  hashed: 0,
  ...r,
});

describe('the progress lines of a job’s transfers', () => {
  it.each([
    [
      pushStartNote({
        root: '/w',
        dirs: [],
        files: [
          { path: '/w/a', size: 1_500_000, mode: 0o644, mtimeMs: 0 },
          { path: '/w/b', size: 250_000, mode: 0o644, mtimeMs: 0 },
        ],
      }),
      'pushing workspace: 2 files, 1.8 MB',
    ],
    [
      pushProgressNote({ files: 3, totalFiles: 10, bytes: 0, totalBytes: 0, stage: 'hashing' }),
      'hashing workspace: 3/10 files',
    ],
    [
      pushProgressNote({ files: 3, totalFiles: 10, bytes: 2e6, totalBytes: 5e6 }),
      'pushing workspace: 3/10 files, 2.0 MB of 5.0 MB',
    ],
    [
      pushProgressNote({ files: 3, totalFiles: 10, bytes: 2e6, totalBytes: 5e6, stage: 'sending' }),
      'pushing workspace: 3/10 files, 2.0 MB of 5.0 MB',
    ],
    [
      pushResultNote(sync({ mode: 'full', filesSent: 4990, bytesSent: 316e6 })),
      'workspace ready: 4990 files, 316.0 MB',
    ],
    [
      pushResultNote(
        sync({
          mode: 'full',
          filesSent: 730,
          bytesSent: 107.6e6,
          tarBytes: 108.5e6,
          streamBytes: 66.1e6,
          link: { bytesPerS: 11.8e6, isLinkBound: true },
        }),
      ),
      'workspace ready: 730 files, 107.6 MB; compressed to 66.1 MB, link 11.8 MB/s',
    ],
    [
      pushResultNote(
        sync({
          mode: 'full',
          filesSent: 730,
          bytesSent: 107.6e6,
          link: { bytesPerS: 2e8, isLinkBound: false },
        }),
      ),
      'workspace ready: 730 files, 107.6 MB; 200.0 MB/s, this machine the limit, not the link',
    ],
    [
      pushResultNote(sync({ filesSent: 12, deleted: 1, unchanged: 4978, bytesSent: 40_000 })),
      'workspace: 12 changed, 1 deleted, 4 978 unchanged (0.0 MB sent)',
    ],
    [
      outputsNote({
        dir: '/o',
        files: [{ path: 'm.json', size: 9, sha256: 'x' }],
        missing: [],
        bytes: 9,
        kept: 0,
        bytesSent: 9,
      }),
      'outputs: 1 files, 9 bytes in /o',
    ],
    [
      outputsNote({
        dir: '/o',
        files: [
          { path: 'm.json', size: 9, sha256: 'x' },
          { path: 'w.bin', size: 90, sha256: 'y' },
        ],
        missing: [],
        bytes: 99,
        kept: 1,
        bytesSent: 9,
      }),
      'outputs: 2 files, 99 bytes in /o (1 unchanged since the last pull, not sent again)',
    ],
    [
      outputsNote({
        dir: '/o',
        files: [],
        missing: ['a.json', 'ckpt/'],
        bytes: 0,
        kept: 0,
        bytesSent: 0,
      }),
      'outputs: 0 files, 0 bytes in /o; missing: a.json, ckpt/',
    ],
  ])('%#: %s', (line, want) => {
    expect(line).toBe(want);
  });
});
