// The workspace's exclusion rules as one question a file watcher can ask of any path:
// would a scan (scan.ts) leave it out? `.git` anywhere, then every .gitignore from the root
// down, then the job's `exclude`, as `scanWorkspace` applies them. An excluded folder hides
// all it holds, as in the scan (which never enters it).
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { excludeRules, gitignoreRules, matchRules, type RuleSet } from './ignore-rules';

export class WorkspaceIgnore {
  private readonly root: string;
  private readonly jobRules: RuleSet;
  /** Rules of each folder's .gitignore (null: none), read once until it changes. */
  private readonly gitignores = new Map<string, RuleSet | null>();

  constructor(workdir: string, exclude: readonly string[]) {
    this.root = path.resolve(workdir);
    this.jobRules = excludeRules(exclude);
  }

  /** For chokidar's `ignored`: an absolute path, and its stats when chokidar has them. */
  isIgnored(absPath: string, stats?: Stats): boolean {
    const rel = path.relative(this.root, absPath).split(path.sep).join('/');
    if (rel === '') return false;
    if (rel.startsWith('../') || rel === '..' || path.isAbsolute(rel)) return true;
    const parts = rel.split('/');
    if (parts.includes('.git')) return true;
    const inherited: RuleSet[] = [];
    for (let i = 0; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      const rules = this.gitignoreOf(folder);
      if (rules) inherited.push(rules);
      const sub = parts.slice(0, i + 1).join('/');
      const isDir = i < parts.length - 1 || isFolder(absPath, stats);
      if (matchRules(sub, isDir, [...inherited, this.jobRules])) return true;
    }
    return false;
  }

  /** A .gitignore was added, changed or removed: read it again next time. */
  forget(absPath: string): void {
    const rel = path.relative(this.root, path.dirname(absPath)).split(path.sep).join('/');
    this.gitignores.delete(rel);
  }

  private gitignoreOf(folder: string): RuleSet | null {
    let rules = this.gitignores.get(folder);
    if (rules === undefined) {
      let text: string | null;
      try {
        text = readFileSync(path.join(this.root, folder, '.gitignore'), 'utf8');
      } catch {
        text = null;
      }
      rules = text === null ? null : gitignoreRules(folder, text);
      this.gitignores.set(folder, rules);
    }
    return rules;
  }
}

function isFolder(absPath: string, stats?: Stats): boolean {
  if (stats) return stats.isDirectory();
  try {
    return lstatSync(absPath).isDirectory();
  } catch {
    return false; // gone: whatever it was, its removal is worth a look
  }
}
