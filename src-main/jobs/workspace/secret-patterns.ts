/**
 * Names of files that usually hold credentials. A match is a warning shown before a push,
 * not an exclusion: the job may need the file, and only the person can say. Matched against
 * the file's own name, ignoring case, because a missed key costs more than a false alarm.
 */
export const SECRET_PATTERNS = [
  '.env',
  '.env.*',
  'id_rsa',
  'id_ed25519',
  '*.pem',
  '*.key',
  'credentials*',
  '.netrc',
  '.npmrc',
  '*.p12',
] as const;

const COMPILED = SECRET_PATTERNS.map((pattern) => ({
  pattern,
  regex: new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  ),
}));

/** The first secret pattern a file name matches, if any. */
export function secretPatternOf(fileName: string): string | undefined {
  return COMPILED.find(({ regex }) => regex.test(fileName))?.pattern;
}
