import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderCore, type CoreOptions } from '../../src-main/core/tender-core';
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

function setup(opts: Partial<CoreOptions> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'tender-ui-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  const core = TenderCore.open({
    home,
    env: { TENDER_AGENT_BUNDLE: agentBundlePath(), HF: 'hf_secret_value' },
    ...opts,
  });
  cores.push(core);
  return { root, home, work, core };
}

async function ok<T>(
  p: Promise<{ ok: true; value: T } | { ok: false; error: { message: string } }>,
) {
  const r = await p;
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('the commands behind the UI', () => {
  it('job.parse fills the composer, keeping from_env secrets as references', async () => {
    const { core, work } = setup();
    const parsed = await ok(
      core.client.invoke('job.parse', {
        baseDir: work,
        text: `[job]\nname = "t"\nrun = "echo hi"\nenv = { A = "1", HF_TOKEN = { secret = true, from_env = "HF" } }\n[pool]\nprovider = "local"\ncount = 2\n`,
      }),
    );
    expect(parsed.job.env).toEqual({ A: '1', HF_TOKEN: { secret: true, fromEnv: 'HF' } });
    expect(JSON.stringify(parsed)).not.toContain('hf_secret_value');
    expect(parsed.pool).toMatchObject({ provider: 'local', count: 2 });
    const bad = await core.client.invoke('job.parse', {
      baseDir: work,
      text: '[job]\nname = 3\nrun = "x"\n',
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toMatch(/tender\.toml:2/);
  });

  it('job.load reads a tender.toml from a folder or a file path, like job.parse', async () => {
    const { core, work, root } = setup();
    const text = `[job]\nname = "t"\nrun = "echo hi"\nenv = { HF_TOKEN = { secret = true, from_env = "HF" } }\n[pool]\ncount = 2\n[policy]\nbudget_usd = 5\n`;
    writeFileSync(join(work, 'tender.toml'), text);
    const fromFolder = await ok(core.client.invoke('job.load', { path: work }));
    expect(fromFolder.file).toBe(join(work, 'tender.toml'));
    expect(fromFolder.job.workspace?.workdir).toBe(work);
    expect(fromFolder.job.env).toEqual({ HF_TOKEN: { secret: true, fromEnv: 'HF' } });
    expect(JSON.stringify(fromFolder)).not.toContain('hf_secret_value');
    expect(fromFolder.pool).toMatchObject({ provider: 'local', count: 2 });
    expect(fromFolder.policy).toEqual({ budgetUsd: 5 });
    const parsed = await ok(core.client.invoke('job.parse', { text, baseDir: work }));
    const { file: _file, ...same } = fromFolder;
    expect(same).toEqual(parsed);
    const fromFile = await ok(core.client.invoke('job.load', { path: join(work, 'tender.toml') }));
    expect(fromFile).toEqual(fromFolder);

    const empty = join(root, 'empty');
    mkdirSync(empty);
    expect(await core.client.invoke('job.load', { path: empty })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: `no tender.toml in ${empty}` },
    });
    expect(await core.client.invoke('job.load', { path: 'relative/dir' })).toMatchObject({
      ok: false,
      error: { code: 'bad_input' },
    });
    writeFileSync(join(empty, 'tender.toml'), '[job]\nname = 3\nrun = "x"\n');
    const bad = await core.client.invoke('job.load', { path: empty });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_input' } });
    if (!bad.ok) expect(bad.error.message).toContain(`${join(empty, 'tender.toml')}:2`);
  });

  it('a run started with a secret reference gets the value; the ledger keeps it redacted', async () => {
    const { core, work, home } = setup();
    writeFileSync(join(work, 'hello.txt'), 'hi\n');
    const leaseStates: string[] = [];
    core.bus.on('lease.changed', (l) => leaseStates.push(l.state));
    const run = await ok(
      core.client.invoke('run.start', {
        job: {
          name: 't',
          run: 'mkdir -p out && printf "%s" "$HF_TOKEN" | wc -c > out/len.txt && echo needle-$((6*7))',
          workspace: { workdir: work, exclude: [] },
          outputs: ['out/'],
          env: { HF_TOKEN: { secret: true, fromEnv: 'HF' } },
        },
        pool: { provider: 'local', count: 1 },
      }),
    );
    await core.waitRun(run.id);
    const outputs = await ok(core.client.invoke('outputs.list', { runId: run.id }));
    expect(outputs).toEqual([
      { nodeId: `${run.id}/node-0`, path: 'out/len.txt', size: expect.any(Number) },
    ]);
    const outDir = join(home, 'runs', run.id, 'node-0', 'outputs');
    expect(readFileSync(join(outDir, 'out', 'len.txt'), 'utf8').trim()).toBe('15');
    const node = (await ok(core.client.invoke('run.get', { runId: run.id }))).nodes[0]!;
    expect(node.stages.map((x) => x.stage)).toEqual([
      'new',
      'lease_requested',
      'endpoint_known', // the local provider returns its endpoint with the lease
      'bootstrap_running',
      'agent_joined',
      'handed_off',
      'dormant',
      'destroying',
      'destroyed',
    ]);
    expect(node.stages.every((x, i) => i === 0 || x.at >= node.stages[i - 1]!.at)).toBe(true);
    expect(node.deadlineAt).toBeNull();
    // The ledger view follows every lease change live, up to the confirmed destroy.
    expect(leaseStates[0]).toBe('requested');
    expect(leaseStates.at(-1)).toBe('destroyed');
    expect(leaseStates).toContain('destroying');
    const found = await ok(
      core.client.invoke('logs.search', { runId: run.id, query: 'NEEDLE-42' }),
    );
    expect(found.records.map((r) => r.line)).toEqual(['needle-42']);
    expect(found.truncated).toBe(false);
    for (const f of ['ledger.sqlite', 'ledger.sqlite-wal']) {
      if (existsSync(join(home, f)))
        expect(readFileSync(join(home, f)).includes('hf_secret_value')).toBe(false);
    }
  });

  it('a reference to a variable that is not set is refused before anything is rented', async () => {
    const { core, work } = setup();
    const r = await core.client.invoke('run.start', {
      job: {
        name: 't',
        run: 'true',
        workspace: { workdir: work, exclude: [] },
        env: { K: { secret: true, fromEnv: 'NOPE' } },
      },
      pool: { provider: 'local', count: 1 },
    });
    expect(r).toMatchObject({ ok: false, error: { message: expect.stringMatching(/\$NOPE/) } });
    expect((await ok(core.client.invoke('lease.list', {}))).length).toBe(0);
  });

  it("env names and params get the job file's checks when a run comes from the UI", async () => {
    const { core, work } = setup();
    const start = (env: Record<string, string>, params: Record<string, string> = {}) =>
      core.client.invoke('run.start', {
        job: { name: 't', run: 'true', workspace: { workdir: work, exclude: [] }, env, params },
        pool: { provider: 'local', count: 1 },
      });
    expect(await start({ '1BAD': 'x' })).toMatchObject({
      ok: false,
      error: { code: 'bad_input', message: expect.stringMatching(/not a valid variable name/) },
    });
    expect(await start({ TENDER_JOB_ID: 'x' })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/reserved/) },
    });
    expect(await start({}, { 'a-b': '1', a_b: '2' })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/both become TENDER_PARAM_A_B/) },
    });
    expect((await ok(core.client.invoke('lease.list', {}))).length).toBe(0);
  });

  it('settings: keys are write-only and kept 0600; defaults persist and apply', async () => {
    const { core, home } = setup();
    const before = await ok(core.client.invoke('settings.get', {}));
    expect(before.secrets.vastaiApiKey).toEqual({ isSet: false, source: null });
    expect(before.shell).toBe('web');
    expect(before.sshPublicKey).toMatch(/^ssh-ed25519 /);
    const after = await ok(
      core.client.invoke('settings.setSecret', { name: 'vastaiApiKey', value: 'vk_abcdef' }),
    );
    expect(after.secrets.vastaiApiKey).toEqual({ isSet: true, source: 'file' });
    expect(JSON.stringify(after)).not.toContain('vk_abcdef');
    expect(statSync(join(home, 'secrets.json')).mode & 0o777).toBe(0o600);
    const cleared = await ok(
      core.client.invoke('settings.setSecret', { name: 'vastaiApiKey', value: null }),
    );
    expect(cleared.secrets.vastaiApiKey.isSet).toBe(false);

    const d = await ok(core.client.invoke('settings.setDefaults', { maxBootAttempts: 5 }));
    expect(d.defaults.maxBootAttempts).toBe(5);
    expect(core.timing.maxBootAttempts).toBe(5);
    const bad = await core.client.invoke('settings.setDefaults', { maxBootAttempts: 99 });
    expect(bad.ok).toBe(false);
  });

  it('the folder picker and "open folder" go through the shell hooks', async () => {
    const opened: string[] = [];
    const { core, work } = setup({
      hooks: { pickFolder: async () => '/picked', openPath: async (p) => void opened.push(p) },
    });
    expect(await ok(core.client.invoke('app.pickFolder', {}))).toEqual({ path: '/picked' });
    expect((await ok(core.client.invoke('settings.get', {}))).shell).toBe('app');
    writeFileSync(join(work, 'a.txt'), 'a');
    const run = await ok(
      core.client.invoke('run.start', {
        job: {
          name: 't',
          run: 'mkdir -p o && cp a.txt o/',
          workspace: { workdir: work, exclude: [] },
          outputs: ['o/'],
        },
        pool: { provider: 'local', count: 1 },
      }),
    );
    await core.waitRun(run.id);
    const res = await ok(
      core.client.invoke('outputs.open', { runId: run.id, nodeName: `${run.id}/node-0` }),
    );
    expect(opened).toEqual([res.path]);
    // Names the ledger does not know are refused before any path reaches the opener.
    const refusals: [string, string, RegExp][] = [
      ['r-nope', 'node-0', /^no run r-nope$/],
      ['../../..', 'node-0', /^no run \.\.\/\.\.\/\.\.$/],
      [run.id, 'node-7', /has no node node-7/],
      [run.id, '../../..', /has no node/],
      [run.id, 'r-other/node-0', /has no node r-other\/node-0/],
    ];
    for (const [runId, nodeName, message] of refusals) {
      const r = await core.client.invoke('outputs.open', { runId, nodeName });
      expect(r).toMatchObject({ ok: false, error: { code: 'not_found' } });
      if (!r.ok) expect(r.error.message).toMatch(message);
    }
    expect(opened).toEqual([res.path]);
    const web = setup().core;
    const refused = await web.client.invoke('app.pickFolder', {});
    expect(refused).toMatchObject({
      ok: false,
      error: { message: 'no folder picker in web mode' },
    });
  });
});
