// What a push would send, in the terms a person checks before renting a node: how much,
// what is left out and by which rule, the biggest files, and names that look like secrets.
import type { ExcludedEntry, ExclusionReason, SecretWarning, WorkspaceScan } from './scan';

export interface WorkspacePreview {
  files: number;
  bytes: number;
  excluded: ExcludedEntry[];
  secrets: SecretWarning[];
  /** The biggest files, largest first (at most LARGEST_COUNT). */
  largest: { path: string; size: number }[];
}

export const LARGEST_COUNT = 10;

/** Pure over a scan: no file is read. */
export function previewWorkspace(scan: WorkspaceScan): WorkspacePreview {
  const largest = [...scan.files]
    .sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .slice(0, LARGEST_COUNT)
    .map((f) => ({ path: f.path, size: f.size }));
  return {
    files: scan.files.length,
    bytes: scan.totalBytes,
    excluded: scan.excluded.map((e) => ({ ...e })),
    secrets: scan.secrets.map((s) => ({ ...s })),
    largest,
  };
}

export interface ExclusionGroup {
  reason: ExclusionReason;
  /** What the group means, for a heading. */
  title: string;
  entries: ExcludedEntry[];
}

const GROUPS: { reason: ExclusionReason; title: string }[] = [
  { reason: 'git', title: 'the .git folder (never pushed)' },
  { reason: 'gitignore', title: 'ignored by .gitignore' },
  { reason: 'exclude', title: "left out by the job's exclude" },
  { reason: 'special', title: 'not regular files (links, devices, unreadable)' },
];

/** The excluded entries by reason, in a fixed order; empty groups are left out. */
export function groupExclusions(excluded: readonly ExcludedEntry[]): ExclusionGroup[] {
  return GROUPS.map((g) => ({
    ...g,
    entries: excluded.filter((e) => e.reason === g.reason),
  })).filter((g) => g.entries.length > 0);
}
