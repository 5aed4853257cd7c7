// Secrets and the side channels: a secret placed across every cut Tender makes (the 1 MiB
// line cut of a job's output, the 64 KiB metrics cut, read boundaries), and a host_setup
// entry's secret. Through the core on the local provider; then every file in the data
// folder (the node's folder with it) is searched for any piece of the secret, and every
// process's command line was watched while it ran. Build first: `npm run build:agent`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from '../helpers/agent-bundle';

const cores: TenderCore[] = [];
const roots: string[] = [];

afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  for (const r of roots.splice(0)) {
    try {
      execFileSync('pkill', ['-KILL', '-f', r]);
    } catch {
      // nothing left running
    }
    rmSync(r, { recursive: true, force: true });
  }
});

/** 20 characters, none of '.' or the words around it: any 4 of them in a row found in a
 *  file is a piece of the secret. A cut leaves a piece of at least 10 on one side. */
const SECRET = 'Zq8Kv3Wm7Rj2Tx5Ny9Pb';
const FRAGMENT = 4;

function fragmentsIn(text: string): string[] {
  const found = new Set<string>();
  for (let i = 0; i + FRAGMENT <= SECRET.length; i++) {
    const piece = SECRET.slice(i, i + FRAGMENT);
    if (text.includes(piece)) found.add(piece);
  }
  return [...found];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The job's own files (its workspace, the metrics file it appends to) hold what it wrote;
 *  every other file is Tender's. */
const isJobsOwn = (path: string) => /(^|\/)(workspace|ws)\/|(^|\/)metrics\.jsonl$/.test(path);

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'tender-secrets-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  const core = TenderCore.open({ home, env: { TENDER_AGENT_BUNDLE: agentBundlePath() } });
  cores.push(core);
  return { root, home, work, core };
}

/** Pieces of the secret in the files under `root` that Tender wrote, as `path: piece`. */
function leaksUnder(root: string, work: string): string[] {
  return filesUnder(root)
    .filter((f) => !isJobsOwn(relative(root, f)) && !f.startsWith(work))
    .flatMap((f) =>
      fragmentsIn(readFileSync(f, 'latin1')).map((p) => `${relative(root, f)}: ${p}`),
    );
}

/** Every process's command line that holds a piece of the secret, polled until stopped. */
function watchCommandLines(): { stop: () => string[] } {
  const seen = new Set<string>();
  const poll = () => {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const line = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
        if (fragmentsIn(line).length > 0) seen.add(line.replaceAll('\0', ' '));
      } catch {
        // it ended meanwhile
      }
    }
  };
  const timer = setInterval(poll, 25);
  return {
    stop: () => {
      clearInterval(timer);
      poll();
      return [...seen];
    },
  };
}

describe('a secret across every cut', () => {
  it('leaves no piece of it in any file Tender writes', async () => {
    const { root, home, work, core } = setup();
    const dots = (n: string) => `head -c $((${n})) /dev/zero | tr '\\0' .`;
    const run = [
      // The line cut (1 MiB) falls 7 bytes into the secret.
      `{ ${dots('1048576 - 7')}; printf '%s\\n' "$API_TOKEN"; }`,
      // The metrics cut (64 KiB) falls 7 bytes into it.
      `{ ${dots('65536 - 7')}; printf '%s\\n' "$API_TOKEN"; } >> "$TENDER_METRICS"`,
      // One character per write: every read boundary inside it.
      `for i in $(seq 0 19); do printf %s "\${API_TOKEN:$i:1}"; sleep 0.02; done; echo`,
      `for i in $(seq 0 19); do printf %s "\${API_TOKEN:$i:1}" >> "$TENDER_METRICS"; sleep 0.3; done`,
      `echo >> "$TENDER_METRICS"`,
      'echo "${#API_TOKEN} chars"',
    ].join('\n');
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'cuts',
        run,
        workspace: { workdir: work, exclude: [] },
        env: { API_TOKEN: { secret: true, value: SECRET } },
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: true, // the node and its folder stay: searched too
    });
    if (!started.ok) throw new Error(started.error.message);
    const outcome = await core.waitRun(started.value.id);
    expect(outcome.status).toBe('completed');
    const out = await core.client.invoke('logs.read', {
      runId: started.value.id,
      channel: 'agent',
    });
    const lines = out.ok
      ? out.value.records.filter((r) => r.source === 'run').map((r) => r.line)
      : [];
    expect(lines.at(-1)).toBe('20 chars'); // the job saw the whole value
    expect(lines.join('')).toContain('***');
    await core.close();
    cores.splice(cores.indexOf(core), 1);
    const nodeLog = filesUnder(join(home, 'local', 'leases')).find((f) => f.endsWith('log.jsonl'));
    const metrics = readFileSync(nodeLog!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { src: string; line: string })
      .filter((r) => r.src === 'metrics');
    expect(metrics.map((r) => r.line.replace(/^\.+/, '.'))).toEqual(['.***', '***']);

    expect(leaksUnder(root, work)).toEqual([]);
  });
});

describe('a host_setup secret', () => {
  it('reaches the command as env, and no ledger, log, file or command line', async () => {
    const { root, home, work, core } = setup();
    // The watch sees a command line that holds it (the check can fail).
    const control = watchCommandLines();
    await new Promise((resolve) =>
      spawn('sh', ['-c', 'sleep 0.2', SECRET.slice(0, 6)]).once('exit', resolve),
    );
    expect(control.stop()).toHaveLength(1);
    const script = 'echo "token=$HF_TOKEN"; echo "${#HF_TOKEN} chars"; sleep 0.3';
    const watch = watchCommandLines();
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'host-secret',
        run: 'echo "run sees ${HF_TOKEN:+the token}"',
        workspace: { workdir: work, exclude: [] },
        env: { HF_TOKEN: { secret: true, value: SECRET } },
        host_setup: [{ script, secrets: ['HF_TOKEN'] }],
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: true, // the node and its folder stay: searched too
    });
    if (!started.ok) throw new Error(started.error.message);
    const outcome = await core.waitRun(started.value.id);
    const cmdlines = watch.stop();
    expect(outcome.status, outcome.failedReason ?? '').toBe('completed');
    const out = await core.client.invoke('logs.read', {
      runId: started.value.id,
      channel: 'agent',
    });
    const lines = out.ok
      ? out.value.records.filter((r) => r.source === 'host_setup').map((r) => r.line)
      : [];
    expect(lines).toEqual([
      `host_setup[1] ${script}`,
      'token=***',
      '20 chars', // the command had the whole value
      `host_setup[1] ${script} exited with code 0`,
    ]);
    await core.close();
    cores.splice(cores.indexOf(core), 1);
    expect(cmdlines).toEqual([]);
    expect(leaksUnder(root, work)).toEqual([]);
    // The ledger's rows, read as SQLite (its pages too are in the file search above).
    const db = new Database(join(home, 'ledger.sqlite'), { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
      name: string;
    }[];
    const rows = tables.flatMap(({ name }) => db.prepare(`SELECT * FROM "${name}"`).all());
    db.close();
    expect(fragmentsIn(JSON.stringify(rows))).toEqual([]);
  });

  it('is refused when [job.env] does not hold it as a secret, naming the fix', async () => {
    const { work, core } = setup();
    const started = await core.client.invoke('run.start', {
      job: {
        name: 'host-secret',
        run: 'true',
        workspace: { workdir: work, exclude: [] },
        env: { HF_TOKEN: 'plain' },
        host_setup: [{ script: 'true', secrets: ['HF_TOKEN'] }],
      },
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    expect(started.ok).toBe(false);
    if (started.ok) return;
    expect(started.error.message).toBe(
      'job.host_setup[0].secrets names HF_TOKEN, which [job.env] has as a plain value',
    );
    expect(started.error.hint).toMatch(/HF_TOKEN = \{ secret = true, from_env = "HF_TOKEN" \}/);
  });
});
