import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJobToml } from '../job-file/job-file';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { convertTask, refusalError } from './convert';
import type { Outcome } from './key-outcomes';

const dir = mkdtempSync(path.join(tmpdir(), 'tender-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function convert(text: string, env: Record<string, string> = {}) {
  return convertTask(text, {
    file: path.join(dir, 'task.yaml'),
    yamlDir: dir,
    cwd: dir,
    home: '/home/u',
    outDir: dir,
    env,
  });
}

/** The conversion loaded by the job file loader, as `tender run task.yaml` loads it. */
function load(text: string, env: Record<string, string> = {}, processEnv: NodeJS.ProcessEnv = {}) {
  const c = convert(text, env);
  if (c.toml === null) throw refusalError(c, 'task.yaml');
  return parseJobToml(c.toml, {
    file: 'task.yaml',
    baseDir: dir,
    knownProviders: KNOWN_PROVIDERS,
    // As loadTaskFile: the YAML's secret values, then the environment, then --env.
    env: { ...c.secretDefaults, ...processEnv, ...env },
  });
}

const outcomeAt = (text: string, at: string, env?: Record<string, string>): Outcome | undefined =>
  convert(text, env).outcomes.find((o) => o.path === at);

describe('key outcomes', () => {
  it.each([
    ['run: echo hi', 'run', 'mapped'],
    ['run: x\nnum_nodes: 2', 'num_nodes', 'mapped'],
    ['run: x\nresources: {use_spot: true}', 'resources.use_spot', 'mapped'],
    ['run: x\nresources: {ports: 8888}', 'resources.ports', 'warned'],
    ['run: x\nresources: {cloud: aws}', 'resources.cloud', 'warned'],
    ['run: x\nresources: {accelerators: K80:1}', 'resources.accelerators', 'refused'],
    ['run: x\nresources: {instance_type: p3.2xlarge}', 'resources.instance_type', 'warned'],
    ['run: x\nresources: {image_id: "docker:ubuntu:22.04"}', 'resources.image_id', 'mapped'],
    ['run: x\nresources: {image_id: ami-123}', 'resources.image_id', 'warned'],
    ['run: x\nfile_mounts: {/data: s3://bucket}', 'file_mounts."/data"', 'warned'],
    [
      'run: x\nfile_mounts: {/ckpt: {source: s3://b, mode: MOUNT}}',
      'file_mounts."/ckpt"',
      'warned',
    ],
    ['run: x\nfile_mounts: {~/cfg: ./cfg}', 'file_mounts."~/cfg"', 'warned'],
    ['run: x\nfile_mounts: {/etc/x: /etc/hosts}', 'file_mounts."/etc/x"', 'warned'],
    ['run: x\nservice: {readiness_probe: /}', 'service', 'refused'],
    ['run: x\nvolumes: {/v: vol}', 'volumes', 'refused'],
    ['run: x\nconfig: {kubernetes: {pod_config: {}}}', 'config.kubernetes.pod_config', 'refused'],
    ['run: x\nworkdir: {url: "https://github.com/a/b"}', 'workdir', 'refused'],
    ['run: x\nsomething_new: 1', 'something_new', 'warned'],
    ['setup: x', 'run', 'refused'],
    ['type: task\ncommands: [echo]', 'commands', 'mapped'],
    ['type: task\ncommands: [echo]\nnodes: 2', 'nodes', 'mapped'],
    ['type: task\ncommands: [echo]\nspot_policy: auto', 'spot_policy', 'warned'],
    ['type: task\ncommands: [echo]\nspot_policy: spot', 'spot_policy', 'mapped'],
    ['type: task\ncommands: [echo]\npython: "3.11"', 'python', 'warned'],
    [
      'type: task\ncommands: [echo]\nutilization_policy: {min_gpu_utilization: 10, time_window: 30m}',
      'utilization_policy',
      'warned',
    ],
    [
      'type: task\ncommands: [echo]\nutilization_policy: {min_gpu_utilization: 10, time_window: soon}',
      'utilization_policy',
      'refused',
    ],
    ['type: task\ncommands: [echo]\nvolumes: [/v:/v]', 'volumes', 'refused'],
    [
      'type: task\ncommands: [echo]\nresources: {gpu: "tpu:v5litepod-8"}',
      'resources.gpu',
      'refused',
    ],
    ['type: service\ncommands: [echo]', 'type', 'refused'],
    ['type: dev-environment\nide: vscode', 'type', 'refused'],
    ['type: fleet\nnodes: 2', 'type', 'refused'],
    ['type: task\nname: x', 'commands', 'refused'],
    ['name: p\n---\nrun: a\n---\nrun: b', '(3 documents)', 'refused'],
  ])('%j: %s is %s', (text, at, kind) => {
    expect(outcomeAt(text, at)?.kind).toBe(kind);
  });

  it('maps every key of the input somewhere', () => {
    const c = convert(
      'name: n\nrun: x\nsetup: y\nenvs: {A: 1}\nnum_nodes: 1\nresources: {cpus: 4+, memory: 32+, disk_size: 100}\n',
    );
    expect(c.outcomes.map((o) => o.path)).toEqual([
      'name',
      'run',
      'setup',
      'envs.A',
      'num_nodes',
      'resources.cpus',
      'resources.memory',
      'resources.disk_size',
      'resources',
    ]);
  });

  it('nothing to run is refused with the fix', () => {
    const c = convert('resources: {accelerators: A100}');
    expect(refusalError(c, 'task.yaml')).toMatchObject({
      message: 'task.yaml: run: nothing to run: the task has no run commands',
      hint: 'add run: | followed by the commands to run',
    });
  });

  it('an accelerator no marketplace sells is refused with the fix', () => {
    const c = convert('run: x\nresources: {accelerators: tpu-v3-8}');
    expect(refusalError(c, 'task.yaml').message).toBe(
      'task.yaml: resources.accelerators: no Tender marketplace (vastai, runpod, lambda) sells tpu-v3-8',
    );
    expect(refusalError(c, 'task.yaml').hint).toMatch(/^name a GPU they sell \(H100, A100/);
  });
});

describe('env handling', () => {
  it.each([
    ['run: x\nenvs: {A: "1", B: 2, C: true}', {}, { A: '1', B: '2', C: 'true' }],
    ['run: x\nenvs: {A: "1"}', { A: 'over' }, { A: 'over' }],
    ['run: x', { EXTRA: 'v' }, { EXTRA: 'v' }],
    ['type: task\ncommands: [x]\nenv: ["A=1", "B=x=y"]', {}, { A: '1', B: 'x=y' }],
  ])('%j with --env %j → %j', (text, flags, env) => {
    expect(load(text, flags).job.env).toEqual(env);
  });

  // A variable the task leaves without a value is a secret: its value comes from the
  // environment at launch (where `tender run --secret` puts it), never from --env.
  it.each([
    ['run: x\nenvs: {A: null}', 'envs.A', { A: { secret: true, value: 'given' } }],
    ['type: task\ncommands: [x]\nenv: [A]', 'env[0]', { A: { secret: true, value: 'given' } }],
    [
      'type: task\ncommands: [x]\nenv: {A: 1, B: null}',
      'env.B',
      { A: '1', B: { secret: true, value: 'given' } },
    ],
  ])('%j: %s from the environment → %j; --env for it refused', (text, at, env) => {
    expect(load(text, {}, { A: 'given', B: 'given' }).job.env).toEqual(env);
    const name = at.endsWith('B') ? 'B' : 'A';
    expect(outcomeAt(text, at, { [name]: 'in-argv' })).toMatchObject({
      kind: 'refused',
      fix: expect.stringContaining(`--secret ${name}=@file`),
    });
  });

  it.each([
    ['run: x\nenvs: {PATH: /bin}', 'envs.PATH', expect.stringMatching(/pick another name/)],
    ['run: x\nenvs: {"MY-VAR": x}', 'envs.MY-VAR', expect.stringMatching(/letters, digits/)],
  ])('%j: %s is refused', (text, at, fix) => {
    expect(outcomeAt(text, at)).toMatchObject({ kind: 'refused', fix });
  });

  it('a secret given a value by --env is refused: the value would sit in ps', () => {
    const o = outcomeAt('run: x\nsecrets: {HF_TOKEN: null}', 'secrets.HF_TOKEN', {
      HF_TOKEN: 'hf_on_the_command_line',
    });
    expect(o).toMatchObject({ kind: 'refused' });
    expect(o).toMatchObject({ why: expect.stringContaining('declared under secrets:') });
    expect(o).toMatchObject({ why: expect.stringContaining('(ps)') });
    expect(o).toMatchObject({ fix: expect.stringContaining('--secret HF_TOKEN=@file') });
    expect(JSON.stringify(o)).not.toContain('hf_on_the_command_line');
  });

  it('a secret is read from the environment at launch, never written; the YAML value is a fallback', () => {
    const c = convert('run: x\nsecrets: {WANDB_API_KEY: null, HF_TOKEN: hf_default}');
    expect(c.toml).toContain('WANDB_API_KEY = { secret = true, from_env = "WANDB_API_KEY" }');
    expect(c.toml).not.toContain('hf_default');
    expect(c.secretDefaults).toEqual({ HF_TOKEN: 'hf_default' });
    const loaded = load(
      'run: x\nsecrets: {WANDB_API_KEY: null, HF_TOKEN: hf_default}',
      {},
      { WANDB_API_KEY: 'w' },
    );
    expect(loaded.job.env).toEqual({
      WANDB_API_KEY: { secret: true, value: 'w' },
      HF_TOKEN: { secret: true, value: 'hf_default' },
    });
    expect(() => load('run: x\nsecrets: {WANDB_API_KEY: null}')).toThrow(
      /environment variable WANDB_API_KEY is not set/,
    );
  });
});

describe('what the job file says', () => {
  it('a SkyPilot task with every mapped resource', () => {
    const loaded = load(`name: train
num_nodes: 2
resources:
  infra: runpod/US-TX-3
  accelerators: [H100:8, A100-80GB:8]
  use_spot: true
  disk_size: 256
  image_id: docker:pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime
  autostop: {idle_minutes: 15}
  job_recovery: {strategy: FAILOVER, max_restarts_on_errors: 5, recover_on_exit_codes: [137]}
run: echo $SKYPILOT_NODE_RANK
`);
    expect(loaded.pool).toMatchObject({
      provider: 'runpod',
      count: 2,
      gpu: 'H100',
      gpu_count: 8,
      interruptible: true,
      disk_gb: 256,
      image: 'pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime',
      region: 'US-TX-3',
    });
    expect(loaded.job).toMatchObject({
      name: 'train',
      distributed: true,
      recovery: { max_restarts: 5, on: ['node_lost', 'preempted', 'exit_code:137'] },
    });
    expect(loaded.job.run).toBe(
      'export SKYPILOT_NODE_RANK="${SKYPILOT_NODE_RANK:-0}"\necho $SKYPILOT_NODE_RANK',
    );
    expect(loaded.policy).toEqual({ idleTimeoutMs: 15 * 60_000 });
  });

  it('ordered clouds become a provider list; any GPU wanted with none named is "cheapest"', () => {
    expect(
      load('run: x\nresources: {accelerators: A10G, ordered: [{cloud: lambda}, {cloud: vast}]}')
        .pool.provider,
    ).toBe('lambda,vastai');
    expect(load('run: x\nresources: {accelerators: A10G}').pool.provider).toBe('cheapest');
    expect(load('run: x').pool.provider).toBe('local');
  });

  it('a dstack task', () => {
    const loaded = load(`type: task
name: ft
nodes: 2
commands: [pip install -r req.txt, python train.py]
working_dir: src
ports: [6006, "8080:80"]
resources: {gpu: "80GB:8", disk: 500GB..}
spot_policy: spot
max_duration: 2d
retry: {on_events: [interruption], duration: 1h}
stop_criteria: master-done
backends: [vastai, aws]
`);
    expect(loaded.pool).toMatchObject({
      provider: 'vastai',
      count: 2,
      gpu_count: 8,
      min_vram_gb: 80,
      disk_gb: 500,
      interruptible: true,
    });
    expect(loaded.job).toMatchObject({
      distributed: true,
      stop: 'rank0',
      ports: [6006, '80:8080'],
      run: 'set -e\ncd src\npip install -r req.txt\npython train.py\n',
      recovery: { max_restarts: 3, on: ['node_lost', 'preempted'] },
    });
    expect(loaded.policy).toEqual({ maxDurationMs: 48 * 3600_000 });
  });

  it("a dstack utilization_policy becomes the node's GPU idle rule, stopping the run", () => {
    const loaded = load(
      'type: task\ncommands: [python train.py]\nutilization_policy: {min_gpu_utilization: 20, time_window: 1h}',
    );
    expect(loaded.policy).toEqual({
      gpuIdle: { belowPct: 20, forMs: 3_600_000, then: 'stop' },
    });
  });

  it('a local file mount inside the workspace is linked in setup', () => {
    const loaded = load(
      'run: x\nsetup: pip install y\nfile_mounts: {~/cfg.json: ./cfg.json, /opt/data: data}\n',
    );
    expect(loaded.job.setup).toBe(
      'mkdir -p "$(dirname "$HOME"/cfg.json)" && ln -sfn "$TENDER_WORKSPACE"/cfg.json "$HOME"/cfg.json\n' +
        'mkdir -p "$(dirname /opt/data)" && ln -sfn "$TENDER_WORKSPACE"/data /opt/data\npip install y',
    );
  });

  it('scripts with quotes, backslashes and odd characters survive the TOML', () => {
    const run = "echo 'a' \"b\" \\n '''\n\tx\u007f\n";
    expect(load(`run: ${JSON.stringify(run)}`).job.run).toBe(run);
    expect(load('run: |\n  echo "$X" \\\n    it\'s\n').job.run).toBe('echo "$X" \\\n  it\'s\n');
  });
});
