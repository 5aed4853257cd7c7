import ignore, { type Ignore } from 'ignore';

/** One set of gitignore-style rules and the folder they are relative to. */
export interface RuleSet {
  /** POSIX path of the folder the patterns are relative to; '' for the workspace root. */
  base: string;
  reason: 'gitignore' | 'exclude';
  /** Where the rules came from: `sub/.gitignore`, or `exclude` for the job's own list. */
  source: string;
  matcher: Ignore;
}

export interface RuleMatch {
  reason: 'gitignore' | 'exclude';
  /** The pattern as written, e.g. `*.ckpt`. */
  rule: string;
  source: string;
}

// Case-sensitive, as git is on Linux (the nodes' side), so a scan gives the same answer on
// every machine.
const newMatcher = (): Ignore => ignore({ ignorecase: false });

export function gitignoreRules(base: string, text: string): RuleSet {
  const source = base === '' ? '.gitignore' : `${base}/.gitignore`;
  return { base, reason: 'gitignore', source, matcher: newMatcher().add(text) };
}

/** The job's `exclude` list: relative to the workspace root, applied after every .gitignore. */
export function excludeRules(patterns: readonly string[]): RuleSet {
  return {
    base: '',
    reason: 'exclude',
    source: 'exclude',
    matcher: newMatcher().add([...patterns]),
  };
}

/**
 * Whether `relPath` is excluded. Rule sets are given shallowest first; as in git, a later set
 * overrides an earlier one, and within a set the last matching pattern wins, so `!keep.me`
 * re-includes. Putting the job's `exclude` last lets it both add exclusions and, with `!`,
 * re-include something a .gitignore leaves out. Inside an excluded folder nothing can be
 * re-included, because the walk never enters it (git behaves the same way).
 */
export function matchRules(
  relPath: string,
  isDir: boolean,
  sets: readonly RuleSet[],
): RuleMatch | undefined {
  let verdict: RuleMatch | undefined;
  for (const set of sets) {
    const local = set.base === '' ? relPath : relPath.slice(set.base.length + 1);
    const result = set.matcher.test(isDir ? `${local}/` : local);
    if (result.ignored && result.rule) {
      verdict = { reason: set.reason, rule: result.rule.pattern, source: set.source };
    } else if (result.unignored) {
      verdict = undefined;
    }
  }
  return verdict;
}
