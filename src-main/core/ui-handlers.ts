import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'smol-toml';
import type { Handlers } from '../api/dispatch';
import type { JobSpec, LogRecord, OutputFile, SettingsView } from '../contract';
import { JOB_FILE_NAME, parseJobToml } from '../jobs/job-file';
import { KNOWN_PROVIDERS } from '../providers/known';
import { ensureTenderKey } from '../transport/keys';
import { nodeOutputsDir } from '../base/paths';
import { secretOrEnv } from './secret-store';
import { readDefaults, writeDefaults } from './settings-store';
import type { TenderCore } from './tender-core';
import { TenderError } from '../base/tender-error';

type UiHandlers = Pick<
  Handlers,
  | 'job.parse'
  | 'job.load'
  | 'logs.search'
  | 'outputs.list'
  | 'outputs.open'
  | 'app.pickFolder'
  | 'settings.get'
  | 'settings.setSecret'
  | 'settings.setDefaults'
>;

/** The commands the UI needs beyond running and tearing down. */
export function makeUiHandlers(core: TenderCore): UiHandlers {
  return {
    'job.parse': async ({ text, baseDir, file }) => parseForUi(text, baseDir, file),
    'job.load': async ({ path }) => {
      const file = jobFileAt(path);
      return { ...parseForUi(readFileSync(file, 'utf8'), dirname(file), file), file };
    },
    'logs.search': async ({ runId, nodeId, query, limit }) => {
      if (!core.ledger.getRun(runId)) throw new TenderError('not_found', `no run ${runId}`);
      const node = nodeId && !nodeId.includes('/') ? `${runId}/${nodeId}` : nodeId;
      const needle = query.toLowerCase();
      const found: LogRecord[] = [];
      for (let from = 1; ;) {
        const page = await core.datastream.read(runId, {
          nodeId: node,
          channel: 'agent',
          fromSeq: from,
          limit: 20_000,
        });
        if (page.length === 0) return { records: found, truncated: false };
        for (const r of page) {
          if (!r.line.toLowerCase().includes(needle)) continue;
          found.push(r);
          if (found.length >= limit) return { records: found, truncated: true };
        }
        if (node === undefined) return { records: found, truncated: false }; // merged reads are one page
        from = page[page.length - 1]!.seq + 1;
      }
    },
    'outputs.list': async ({ runId }) => {
      const run = core.ledger.getRun(runId);
      if (!run) throw new TenderError('not_found', `no run ${runId}`);
      const files: OutputFile[] = [];
      for (const n of core.ledger.nodesOfRun(runId)) {
        const dir = nodeOutputsDir(core.home, runId, n.logicalId);
        for (const f of walkFiles(dir)) files.push({ nodeId: n.id, path: f.path, size: f.size });
      }
      return files;
    },
    'outputs.open': async ({ runId, nodeId }) => {
      const logical = nodeId.includes('/') ? nodeId.slice(nodeId.indexOf('/') + 1) : nodeId;
      const dir = nodeOutputsDir(core.home, runId, logical);
      if (!existsSync(dir))
        throw new TenderError('not_found', `no outputs for ${logical} of ${runId} yet`);
      await (core.hooks.openPath ?? openWithSystem)(dir);
      return { path: dir };
    },
    'app.pickFolder': async () => {
      if (!core.hooks.pickFolder) {
        throw new TenderError(
          'conflict',
          'no folder picker in web mode',
          'type or paste the folder path instead',
        );
      }
      return { path: await core.hooks.pickFolder() };
    },
    'settings.get': async () => settingsView(core),
    'settings.setSecret': async ({ name, value }) => {
      core.secrets.set(name, value);
      return settingsView(core);
    },
    'settings.setDefaults': async (patch) => {
      core.requireWriter();
      writeDefaults(core.home, { ...readDefaults(core.home), ...patch });
      core.applyDefaults();
      return settingsView(core);
    },
  };
}

function settingsView(core: TenderCore): SettingsView {
  const vast = secretOrEnv(core.secrets, 'vastaiApiKey', core.env);
  return {
    dataFolder: core.home,
    secrets: { vastaiApiKey: { isSet: vast.value !== null, source: vast.source } },
    sshPublicKey: ensureTenderKey(core.home).publicKey,
    defaults: readDefaults(core.home),
    shell: core.hooks.pickFolder ? 'app' : 'web',
  };
}

/** Parses a tender.toml for the composer. `from_env` secrets stay references, resolved only
 *  when the run starts, in the process that runs Tender: their values never reach a UI. */
function parseForUi(
  text: string,
  baseDir: string,
  file: string | undefined,
): Omit<ReturnType<typeof parseJobToml>, 'file'> {
  const fromEnv = fromEnvNames(text);
  const placeholders: NodeJS.ProcessEnv = {};
  for (const name of Object.values(fromEnv)) placeholders[name] = 'placeholder';
  const loaded = parseJobToml(text, {
    file: file ?? 'tender.toml',
    baseDir,
    knownProviders: KNOWN_PROVIDERS,
    env: placeholders,
  });
  const env: JobSpec['env'] = {};
  for (const [key, value] of Object.entries(loaded.job.env)) {
    env[key] = fromEnv[key] ? { secret: true, fromEnv: fromEnv[key] } : value;
  }
  return { job: { ...loaded.job, env }, pool: loaded.pool, policy: loaded.policy };
}

/** The tender.toml a path names: the file itself, or the one in a folder. Paths are on the
 *  machine running Tender; `~/` is its user's home. */
function jobFileAt(given: string): string {
  const path = given.startsWith('~/') ? join(homedir(), given.slice(2)) : given;
  if (!isAbsolute(path)) {
    throw new TenderError(
      'bad_input',
      `${given} is not an absolute path`,
      'give the full path of the folder or its tender.toml',
    );
  }
  if (!existsSync(path)) throw new TenderError('not_found', `no such file or folder: ${path}`);
  const file = statSync(path).isDirectory() ? join(path, JOB_FILE_NAME) : path;
  if (!existsSync(file)) throw new TenderError('not_found', `no ${JOB_FILE_NAME} in ${path}`);
  const st = statSync(file);
  if (!st.isFile() || st.size > MAX_JOB_FILE_BYTES) {
    throw new TenderError(
      'bad_input',
      `${file} is not a job file`,
      `a tender.toml is a text file under ${MAX_JOB_FILE_BYTES / 1_000_000} MB`,
    );
  }
  return file;
}

const MAX_JOB_FILE_BYTES = 1_000_000; // the same cap as job.parse's text

function fromEnvNames(text: string): Record<string, string> {
  try {
    const doc = parse(text) as { job?: { env?: Record<string, unknown> } };
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(doc.job?.env ?? {})) {
      const ref = (v as { from_env?: unknown } | null)?.from_env;
      if (typeof ref === 'string') out[k] = ref;
    }
    return out;
  } catch {
    return {}; // parseJobToml reports the syntax error with its position
  }
}

function walkFiles(root: string, rel = ''): { path: string; size: number }[] {
  const dir = join(root, rel);
  if (!existsSync(dir)) return [];
  const out: { path: string; size: number }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walkFiles(root, p));
    else if (e.isFile()) out.push({ path: p, size: statSync(join(root, p)).size });
  }
  return out;
}

function openWithSystem(path: string): Promise<void> {
  const cmd =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [path], { detached: true, stdio: 'ignore' });
    child.once('error', () =>
      reject(
        new TenderError(
          'conflict',
          `could not open ${path}: no ${cmd} here`,
          'open the folder yourself',
        ),
      ),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
