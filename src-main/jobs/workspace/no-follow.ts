// A workspace file is read where the scan found it, never through a symlink: one swapped in
// for a file during a push (by a tool, or by someone who can write to the workspace) would
// otherwise send whatever it points to — `~/.ssh/id_ed25519` — to the node. O_NOFOLLOW
// refuses a link at the last component (ELOOP); a delta push also checks each opened
// file's inode against the scan's, which catches a folder swapped above it.
import { constants } from 'node:fs';

/** Open flags for reading a workspace file. Windows has no O_NOFOLLOW (0 there). */
export const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** The error of opening, with READ_NO_FOLLOW, a path that has become a symlink. */
export function isSymlinkRefusal(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ELOOP' || code === 'EMLINK'; // EMLINK: FreeBSD's answer
}
