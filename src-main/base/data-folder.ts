// The data folder (`TENDER_HOME`) holds the ledger, the logs, the outputs and the agent
// Tender runs: whoever can write to it can run code as you. So it is created 0700, and an
// existing one is used only when it is yours and nobody else can write to it or replace it.
import { chmodSync, lstatSync, mkdirSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { TenderError } from './tender-error';

const GROUP_OTHER_WRITE = 0o022;
const GROUP_OTHER_ANY = 0o077;
const STICKY = 0o1000;

/** What the checks need of the process; injectable so a test can be "another user". */
export interface Owner {
  uid: number;
  gid: number;
}

function currentOwner(): Owner | null {
  // Windows has no POSIX owners or modes: its ACLs are left to the user profile.
  if (typeof process.getuid !== 'function' || typeof process.getgid !== 'function') return null;
  return { uid: process.getuid(), gid: process.getgid() };
}

/** Creates the data folder 0700 (and its missing parents), or checks an existing one:
 *  - the folder (a symlink's target) must be a folder of this user's that neither group
 *    nor others can write to; a group/other-readable one of ours is tightened to 0700;
 *  - a symlink at `home` must belong to this user or root;
 *  - every folder above it (above the link and above its target) must belong to this
 *    user or root and be unwritable by others unless sticky (as `/tmp` is), so nobody can
 *    rename the data folder away and put their own in its place. A group-writable parent is
 *    accepted only when it is ours and its group is our own primary group (user private
 *    groups, where the group is only us).
 *  Throws a `bad_input` TenderError naming the folder and the fix. */
export function ensureDataFolder(home: string, owner: Owner | null = currentOwner()): void {
  const abs = resolve(home);
  if (!exists(abs)) {
    mkdirSync(abs, { recursive: true, mode: 0o700 });
    if (owner === null) return;
    chmodSync(abs, 0o700);
  }
  if (owner === null) return;
  const link = lstatSync(abs);
  if (link.isSymbolicLink()) {
    if (link.uid !== owner.uid && link.uid !== 0)
      refuse(
        abs,
        `the data folder ${abs} is a symlink owned by another user (uid ${link.uid})`,
        `remove it, or choose a folder of your own with TENDER_HOME`,
      );
    checkAncestors(abs, dirname(abs), owner);
  }
  const real = realpathSync(abs);
  const st = statSync(real);
  const named = real === abs ? abs : `${abs} (→ ${real})`;
  if (!st.isDirectory())
    refuse(abs, `the data folder ${named} is not a folder`, 'choose a folder with TENDER_HOME');
  if (st.uid !== owner.uid)
    refuse(
      abs,
      `the data folder ${named} belongs to another user (uid ${st.uid}): a file they put there would run as you`,
      `choose a folder of your own with TENDER_HOME (e.g. TENDER_HOME=$HOME/tender)`,
    );
  if ((st.mode & GROUP_OTHER_WRITE) !== 0)
    refuse(
      abs,
      `the data folder ${named} is writable by others (mode ${octal(st.mode)}): a file they put there would run as you`,
      `chmod 700 ${real} after checking what is in it, or choose a folder of your own with TENDER_HOME`,
    );
  if ((st.mode & GROUP_OTHER_ANY) !== 0) chmodSync(real, 0o700); // ours: make it private
  checkAncestors(abs, dirname(real), owner);
}

/** Each folder from `dir` up to the root, symlinks resolved. */
function checkAncestors(home: string, dir: string, owner: Owner): void {
  let at = realpathSync(dir);
  for (;;) {
    const st = statSync(at);
    const why = unsafeParent(st, owner);
    if (why)
      refuse(
        home,
        `${at}, a folder above the data folder ${home}, ${why}: another user could replace the data folder`,
        `chmod go-w ${at}, or choose a folder of your own with TENDER_HOME (e.g. TENDER_HOME=$HOME/tender)`,
      );
    const up = dirname(at);
    if (up === at) return;
    at = up;
  }
}

function unsafeParent(st: Stats, owner: Owner): string | null {
  if (st.uid !== owner.uid && st.uid !== 0) return `belongs to another user (uid ${st.uid})`;
  if ((st.mode & STICKY) !== 0) return null;
  if ((st.mode & 0o002) !== 0) return `is writable by everyone (mode ${octal(st.mode)})`;
  const ownPrivateGroup = st.uid === owner.uid && st.gid === owner.gid;
  if ((st.mode & 0o020) !== 0 && !ownPrivateGroup)
    return `is writable by its group (mode ${octal(st.mode)})`;
  return null;
}

function refuse(home: string, message: string, fix: string): never {
  throw new TenderError('bad_input', `${message}; Tender will not use ${home}`, fix);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}
