// Import writes what it can: what a task leaves to launch time (a variable with no value),
// mounts Tender cannot make (buckets, files outside the workspace) and sizes it has no
// equivalent for (a fraction of a CPU) are warnings named by key, never refusals.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJobToml } from '../job-file/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { convertTask } from './convert';
import { loadTaskFile } from './load-task';

const dir = mkdtempSync(path.join(tmpdir(), 'tender-import-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function convert(text: string, flags: Record<string, string> = {}) {
  return convertTask(text, {
    file: path.join(dir, 'task.yaml'),
    yamlDir: dir,
    cwd: dir,
    home: '/home/u',
    outDir: dir,
    env: flags,
  });
}

function warningAt(text: string, at: string) {
  const c = convert(text);
  expect(c.toml, JSON.stringify(c.outcomes)).not.toBeNull();
  const o = c.outcomes.find((x) => x.path === at);
  expect(o?.kind).toBe('warned');
  return { c, why: o && 'why' in o ? o.why : '' };
}

const load = (toml: string, env: NodeJS.ProcessEnv) =>
  parseJobToml(toml, { file: 'task.yaml', baseDir: dir, knownProviders: KNOWN_PROVIDERS, env });

describe('a variable with no value: a secret read from the environment at launch', () => {
  // prettier-ignore
  const cases: [string, string, string][] = [
    ['SkyPilot envs: HF_TOKEN:', 'run: x\nenvs: {HF_TOKEN: null}', 'envs.HF_TOKEN'],
    ['SkyPilot envs: HF_TOKEN: (block)', 'run: x\nenvs:\n  HF_TOKEN:\n  MODEL: llama', 'envs.HF_TOKEN'],
    ['dstack bare - HF_TOKEN', 'type: task\ncommands: [x]\nenv: [HF_TOKEN]', 'env[0]'],
    ['dstack HF_TOKEN: null', 'type: task\ncommands: [x]\nenv: {HF_TOKEN: null}', 'env.HF_TOKEN'],
  ];
  it.each(cases)('%s', (_what, text, at) => {
    const { c, why } = warningAt(text, at);
    expect(why).toContain('read from $HF_TOKEN when the run starts, as a secret');
    expect(c.toml).toContain('HF_TOKEN = { secret = true, from_env = "HF_TOKEN" }');
    expect(c.secretNames).toContain('HF_TOKEN');
    // At launch: taken from the environment, and named when it is not there.
    expect(load(c.toml!, { HF_TOKEN: 'hf_x' }).job.env.HF_TOKEN).toEqual({
      secret: true,
      value: 'hf_x',
    });
    expect(() => load(c.toml!, {})).toThrow(/environment variable HF_TOKEN is not set/);
  });

  it('a --env value for it is refused, never used or written: on a command line, ps shows it', () => {
    const c = convert('run: x\nenvs: {HF_TOKEN: null}', { HF_TOKEN: 'hf_secret_value' });
    expect(c.toml).toBeNull();
    const o = c.outcomes.find((x) => x.path === 'envs.HF_TOKEN');
    expect(o).toMatchObject({
      kind: 'refused',
      why: expect.stringContaining('readable by every process on this machine (ps)'),
      fix: expect.stringContaining('--secret HF_TOKEN=@file'),
    });
    expect(JSON.stringify(c.outcomes)).not.toContain('hf_secret_value');
  });
});

describe('tender run task.yaml names every value missing at launch', () => {
  const yaml = path.join(dir, 'tokens.yaml');
  writeFileSync(yaml, 'run: x\nenvs:\n  HF_TOKEN:\n  WANDB_API_KEY:\nsecrets:\n  GH_TOKEN:\n');
  const run = (env: NodeJS.ProcessEnv, envFlags: Record<string, string> = {}) =>
    loadTaskFile(yaml, { knownProviders: KNOWN_PROVIDERS, env, envFlags, cwd: dir });

  // prettier-ignore
  const cases: [string, NodeJS.ProcessEnv, Record<string, string>, string | null][] = [
    ['none given', {}, {}, 'GH_TOKEN, HF_TOKEN, WANDB_API_KEY have no value in the task and are not set in the environment'],
    ['one left', { HF_TOKEN: 'a', GH_TOKEN: 'c' }, {}, 'WANDB_API_KEY has no value in the task and is not set in the environment'],
    ['an empty variable is not given', { HF_TOKEN: '', WANDB_API_KEY: 'b', GH_TOKEN: 'c' }, {}, 'HF_TOKEN has no value'],
    ['all in the environment (where tender run puts --secret values)', { HF_TOKEN: 'a', GH_TOKEN: 'c', WANDB_API_KEY: 'b' }, {}, null],
  ];
  it.each(cases)('%s', (_what, env, flags, message) => {
    if (message === null) {
      expect(run(env, flags).job.env.WANDB_API_KEY).toEqual({ secret: true, value: 'b' });
      return;
    }
    expect(() => run(env, flags)).toThrow(message);
    try {
      run(env, flags);
    } catch (err) {
      expect((err as { hint?: string }).hint).toMatch(
        /^export .*=… before tender run, or give (it|them) from a file: --secret \w+=@path/,
      );
    }
  });
});

describe('a bucket or storage mount: left out, the data written there lost at teardown', () => {
  // prettier-ignore
  const cases: [string, string, string, string][] = [
    ['a bucket URL', 'run: x\nfile_mounts: {/data: "s3://my-bucket/data"}', 'file_mounts."/data"', 'a bucket mount (s3://my-bucket/data) at /data'],
    ['a gs:// file', 'run: x\nfile_mounts: {~/f.tar: "gs://b/f.tar"}', 'file_mounts."~/f.tar"', 'a bucket mount (gs://b/f.tar) at ~/f.tar'],
    ['storage with a bucket source', 'run: x\nfile_mounts: {/ckpt: {source: "s3://b", mode: MOUNT}}', 'file_mounts."/ckpt"', 'a bucket mount (s3://b) at /ckpt'],
    ['storage naming a new bucket', 'run: x\nfile_mounts: {/outputs: {name: my-out, mode: MOUNT}}', 'file_mounts."/outputs"', 'a bucket mount (a new bucket) at /outputs'],
  ];
  it.each(cases)('%s', (_what, text, at, named) => {
    const { c, why } = warningAt(text, at);
    expect(why).toContain(named);
    expect(why).toMatch(/lost at teardown/);
    expect(why).toMatch(/\[job\] outputs/);
    expect(c.toml).not.toMatch(/s3:|gs:/);
  });

  it('storage whose source is a local folder in the workspace is linked like a path', () => {
    const c = convert('run: x\nfile_mounts: {~/wd: {name: b, source: ., mode: COPY}}');
    expect(c.toml).toContain('ln -sfn "$TENDER_WORKSPACE" "$HOME"/wd');
  });
});

describe('a local file mount outside the workspace: left out, nothing copied', () => {
  // prettier-ignore
  const cases: [string, string, string, RegExp][] = [
    ['a file in home', 'run: x\nfile_mounts: {~/tmpfile: ~/tmpfile}', 'file_mounts."~/tmpfile"', /~\/tmpfile is outside the workspace .*: Tender pushes the workspace only, so ~\/tmpfile will not be on the node/],
    ['a system file', 'run: x\nfile_mounts: {/etc/x: /etc/hosts}', 'file_mounts."/etc/x"', /\/etc\/hosts is outside the workspace/],
    ['a folder above', 'run: x\nfile_mounts: {/data: ../data}', 'file_mounts."/data"', /\.\.\/data is outside the workspace/],
    ['a private key', 'run: x\nfile_mounts: {~/.ssh/id_rsa: ~/.ssh/id_rsa}', 'file_mounts."~/.ssh/id_rsa"', /nothing under ~\/\.ssh is ever copied to a node/],
    ['dstack files outside', 'type: task\ncommands: [x]\nfiles: ["~/.ssh/id_ed25519:/root/.ssh/id_ed25519"]', 'files[0]', /nothing under ~\/\.ssh is ever copied/],
  ];
  it.each(cases)('%s', (_what, text, at, why) => {
    const w = warningAt(text, at);
    expect(w.why).toMatch(why);
    expect(w.c.toml).not.toMatch(/id_rsa|id_ed25519|tmpfile|hosts|\.\.\/data/);
  });
});

describe('resources.cpus: a fraction has no equivalent', () => {
  // prettier-ignore
  const cases: [string, string, string | null][] = [
    ['0.5', 'run: x\nresources: {cpus: 0.5}', null],
    ['0.5+', 'run: x\nresources: {cpus: "0.5+"}', null],
    ['4+ (whole: a constraint)', 'run: x\nresources: {cpus: 4+}', 'cpu.cores >= 4'],
  ];
  it.each(cases)('%s', (_what, text, constraint) => {
    const c = convert(text);
    expect(c.toml).not.toBeNull();
    const o = c.outcomes.find((x) => x.path === 'resources.cpus');
    if (constraint === null) {
      expect(o).toMatchObject({
        kind: 'warned',
        why: expect.stringContaining('no Tender equivalent'),
      });
      expect(c.toml).not.toContain('cpu.cores');
    } else expect(c.toml).toContain(constraint);
  });
});
