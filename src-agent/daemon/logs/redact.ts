// Secret values never reach the log: each one (6 characters or longer) becomes '***'.
// Shorter values would blank out ordinary words, so they are left alone.

export const MIN_SECRET_LENGTH = 6;

export type Redactor = (line: string) => string;

export function createRedactor(secretValues: Iterable<string>): Redactor {
  const needles = new Set<string>();
  for (const value of secretValues) {
    // A multi-line secret (a PEM key) reaches the log one line at a time.
    for (const part of value.split(/\r?\n/)) {
      if (part.length >= MIN_SECRET_LENGTH) needles.add(part);
    }
    if (value.length >= MIN_SECRET_LENGTH) needles.add(value);
  }
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = [...needles].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return (line) => line;
  return (line) => {
    let out = line;
    for (const needle of sorted) if (out.includes(needle)) out = out.split(needle).join('***');
    return out;
  };
}
