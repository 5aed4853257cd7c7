// A V8 code cache for the command line's own start-up. Every `tender` command compiles
// ~2.6 MB of JavaScript (the bundle, zod, ssh2, …) before its first line runs: ~35 ms of a
// warm rerun's ~400. Node ≥ 22.1 has this built in (`module.enableCompileCache`); on older
// Node each CommonJS module is compiled through `vm.Script` with the bytes V8 produced last
// time, and what had none (or had them rejected: another Node, another file) is written at
// exit. The folder must be this user's alone: cached bytecode is code.
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** Entries not rewritten for this long are removed when new ones are written (an upgrade). */
const PRUNE_AFTER_MS = 30 * 24 * 3600_000;

export interface CompileCacheStats {
  dir: string;
  /** `native`: Node's own cache; `vm`: this one; `off`: none (see `reason`). */
  mode: 'native' | 'vm' | 'off';
  reason?: string;
  hits: number;
  misses: number;
}

/** Where the cache lives: TENDER_COMPILE_CACHE, else the user's cache folder. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TENDER_COMPILE_CACHE) return env.TENDER_COMPILE_CACHE;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'tender', `compile-${process.version}-${process.arch}`);
}

/** Why `dir` must not be used (null: it may): it has to be a folder of ours that nobody
 *  else can write to. */
export function unsafeCacheDir(dir: string): string | null {
  const st = lstatSync(dir);
  if (!st.isDirectory()) return `${dir} is not a folder`;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    return `${dir} belongs to another user`;
  if ((st.mode & 0o022) !== 0) return `${dir} is writable by others`;
  return null;
}

type Compile = (this: NodeModule, content: string, filename: string) => unknown;
interface ModuleInternals {
  prototype: { _compile: Compile; require(id: string): unknown };
  wrap(src: string): string;
  _resolveFilename(request: string, parent: NodeModule, isMain: boolean, opts?: object): string;
  _extensions: object;
  _cache: object;
  enableCompileCache?: (dir: string) => { status: number; message?: string };
}

/** Installs the cache for every CommonJS module loaded from now on. Never throws: without a
 *  usable folder the command starts as it always did. `TENDER_COMPILE_CACHE=off` disables. */
export function installCompileCache(dir = compileCacheDir()): CompileCacheStats {
  const stats: CompileCacheStats = { dir, mode: 'off', hits: 0, misses: 0 };
  if (dir === 'off') return { ...stats, reason: 'TENDER_COMPILE_CACHE=off' };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const unsafe = unsafeCacheDir(dir);
    if (unsafe) return { ...stats, reason: unsafe };
  } catch (err) {
    return { ...stats, reason: (err as Error).message };
  }
  const M = Module as unknown as ModuleInternals;
  if (typeof M.enableCompileCache === 'function') {
    M.enableCompileCache(dir);
    return { ...stats, mode: 'native' };
  }
  stats.mode = 'vm';
  const fresh: { file: string; script: Script }[] = [];
  const original = M.prototype._compile;
  M.prototype._compile = function (this: NodeModule, content: string, filename: string) {
    let script: Script;
    let file: string;
    try {
      file = join(
        dir,
        createHash('sha1').update(filename).update('\0').update(content).digest('hex'),
      );
      let cachedData: Buffer | undefined;
      try {
        cachedData = readFileSync(file);
      } catch {
        /* not cached yet */
      }
      // A shebang is legal only at the very start of a file, not inside the wrapper.
      const source = content.startsWith('#!') ? `//${content}` : content;
      script = new Script(M.wrap(source), { filename, cachedData });
      if (cachedData && !script.cachedDataRejected) stats.hits++;
      else {
        stats.misses++;
        fresh.push({ file, script });
      }
    } catch {
      return original.call(this, content, filename); // let Node report it as it would
    }
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return fn.call(
      this.exports,
      this.exports,
      requireFor(M, this),
      this,
      filename,
      dirname(filename),
    );
  };
  // At exit, so functions compiled lazily while the command ran are in it too.
  process.once('exit', () => writeFresh(dir, fresh));
  return stats;
}

function requireFor(M: ModuleInternals, mod: NodeModule): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as NodeJS.Require;
  req.resolve = ((request: string, opts?: object) =>
    M._resolveFilename(request, mod, false, opts)) as NodeJS.RequireResolve;
  req.main = require.main;
  req.extensions = M._extensions as NodeJS.RequireExtensions;
  req.cache = M._cache as NodeJS.Dict<NodeModule>;
  return req;
}

function writeFresh(dir: string, fresh: { file: string; script: Script }[]): void {
  if (fresh.length === 0) return;
  for (const { file, script } of fresh) {
    const tmp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      rmSync(tmp, { force: true });
    }
  }
  pruneOld(dir, Date.now());
}

/** Removes entries older than PRUNE_AFTER_MS (what an upgrade left behind). */
export function pruneOld(dir: string, now: number): void {
  try {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (now - lstatSync(p).mtimeMs > PRUNE_AFTER_MS) rmSync(p, { force: true });
    }
  } catch {
    /* a cache */
  }
}
