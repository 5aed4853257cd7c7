import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from './atomic-file';
import { quoted } from './ssh-config-entries';

/** The one line Tender adds to the user's ~/.ssh/config. */
export function includeLine(configPath: string): string {
  return `Include ${quoted(configPath)}`;
}

/** Whether a config line is an Include of exactly `configPath` (quoted or not, any case). */
function isOurInclude(line: string, configPath: string): boolean {
  const m = /^\s*include\s*=?\s*(.+?)\s*$/i.exec(line);
  if (!m) return false;
  const arg = m[1]!.startsWith('"') && m[1]!.endsWith('"') ? m[1]!.slice(1, -1) : m[1]!;
  return arg.replace(/\\"/g, '"') === configPath;
}

export function hasInclude(text: string, configPath: string): boolean {
  return text.split(/\r?\n/).some((l) => isOurInclude(l, configPath));
}

/** The text with our Include as its first line, or unchanged when it is there already.
 *  First: ssh takes the first value it reads for each option, and an Include after a
 *  `Host`/`Match` line would only apply inside that block. */
export function withInclude(text: string, configPath: string): string {
  if (hasInclude(text, configPath)) return text;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return `${includeLine(configPath)}${eol}${text}`;
}

/** The text without our Include line (every copy), the rest byte for byte. */
export function withoutInclude(text: string, configPath: string): string {
  const parts = text.split(/(\r?\n)/);
  let out = '';
  for (let i = 0; i < parts.length; i += 2) {
    const line = parts[i]!;
    const eol = parts[i + 1] ?? '';
    if (!isOurInclude(line, configPath)) out += line + eol;
  }
  return out;
}

export interface IncludeChange {
  /** The file changed (a symlinked config: the file it points to). */
  path: string;
  changed: boolean;
  created: boolean;
}

export function userSshConfigPath(home = homedir()): string {
  return join(home, '.ssh', 'config');
}

/** Adds the Include to the user's ssh config: ~/.ssh made 0700 when created, the file
 *  created 0600 when absent, its mode kept otherwise, written atomically, never twice. */
export function installInclude(
  configPath: string,
  userConfig = userSshConfigPath(),
): IncludeChange {
  const sshDir = dirname(userConfig);
  mkdirSync(sshDir, { recursive: true, mode: 0o700 });
  const target = resolved(userConfig);
  const before = readOrNull(target);
  const after = withInclude(before ?? '', configPath);
  if (after === before) return { path: target, changed: false, created: false };
  writeFileAtomic(target, after, before === null ? 0o600 : statSync(target).mode & 0o777);
  return { path: target, changed: true, created: before === null };
}

/** Removes the Include; the file is left in place (empty when it held only that line). */
export function uninstallInclude(
  configPath: string,
  userConfig = userSshConfigPath(),
): IncludeChange {
  const target = resolved(userConfig);
  const before = readOrNull(target);
  if (before === null) return { path: target, changed: false, created: false };
  const after = withoutInclude(before, configPath);
  if (after === before) return { path: target, changed: false, created: false };
  writeFileAtomic(target, after, statSync(target).mode & 0o777);
  return { path: target, changed: true, created: false };
}

export function isIncludeInstalled(configPath: string, userConfig = userSshConfigPath()): boolean {
  const text = readOrNull(resolved(userConfig));
  return text !== null && hasInclude(text, configPath);
}

/** A config kept as a symlink (a dotfiles repository) is changed where it points, and
 *  stays a symlink. */
function resolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
