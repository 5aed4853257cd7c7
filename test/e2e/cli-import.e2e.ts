// `tender import` and `tender run task.yaml`: SkyPilot and dstack tasks converted to job
// files and run on the local provider, one node and a 2-node gang; bad input exits 2.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';

const newHome = useTempHomes();

/** A project folder with `files`, and a fresh TENDER_HOME. */
function project(files: Record<string, string>) {
  const { home, root } = newHome();
  const dir = join(root, 'proj');
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { home, dir };
}

function lastJson(stdout: string) {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as {
    status: string;
    outputsDir: string;
    nodes: { id: string; stage: string; exitCode: number | null }[];
  };
}

const output = (outputsDir: string, node: string, name: string) =>
  readFileSync(join(outputsDir, node, 'outputs', '_output', name), 'utf8');

const SKY_TASK = `name: hello-sky
workdir: .
envs:
  GREETING: hello
  TARGET: null
setup: |
  echo setting up > setup.txt
run: |
  cat setup.txt > $TENDER_OUTPUT/said.txt
  echo "$GREETING $TARGET from rank $SKYPILOT_NODE_RANK" >> $TENDER_OUTPUT/said.txt
`;

describe('tender import', () => {
  it('writes a job file that tender run accepts and runs', async () => {
    const { home, dir } = project({ 'task.yaml': SKY_TASK });
    const imp = await runCli(['import', join(dir, 'task.yaml'), '-o', join(dir, 'tender.toml')], {
      home,
      cwd: dir,
    });
    expect(imp.code, imp.stderr).toBe(0);
    const toml = readFileSync(join(dir, 'tender.toml'), 'utf8');
    // A variable the task leaves without a value is read at launch, as a secret (it is most
    // often a token): its value is never written, nor taken from the command line.
    expect(toml).toContain(
      'env = { GREETING = "hello", TARGET = { secret = true, from_env = "TARGET" } }',
    );
    expect(toml).not.toContain('world');
    expect(toml).toContain('workspace = { workdir = "." }');

    // From another folder: the job file's workspace is relative to the job file.
    const r = await runCli(['run', join(dir, 'tender.toml'), '--json'], {
      home,
      env: { TARGET: 'world' },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = lastJson(r.stdout);
    expect(out.status).toBe('completed');
    expect(output(out.outputsDir, 'node-0', 'said.txt')).toBe(
      'setting up\nhello world from rank 0\n',
    );
  });

  it('--explain prints each key and what became of it', async () => {
    const { home, dir } = project({
      'task.yaml': `${SKY_TASK}resources:\n  accelerators: A100:8\n  ports: 8888\n`,
    });
    const r = await runCli(['import', join(dir, 'task.yaml'), '--explain'], {
      home,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^key\s+outcome\s+detail$/m);
    expect(r.stdout).toMatch(
      /^resources\.accelerators\s+mapped\s+→ pool\.gpu = "A100", gpu_count = 8$/m,
    );
    expect(r.stdout).toMatch(
      /^resources\.ports\s+warned\s+→ job\.ports = \[8888\]; SkyPilot opens these to the internet/m,
    );
    expect(r.stdout).toMatch(/^envs\.GREETING\s+mapped\s+→ job\.env\.GREETING$/m);
    expect(r.stdout).toMatch(
      /^envs\.TARGET\s+warned\s+→ job\.env\.TARGET = \{ secret = true, from_env = "TARGET" \}; no value in the task: read from \$TARGET when the run starts, as a secret/m,
    );
  });
});

describe('tender run task.yaml (local provider)', () => {
  it('runs a SkyPilot task directly', async () => {
    const { home, dir } = project({ 'task.yaml': SKY_TASK });
    const r = await runCli(['run', join(dir, 'task.yaml'), '--secret', 'TARGET', '--json'], {
      home,
      cwd: dir,
      env: { TARGET: 'there' },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = lastJson(r.stdout);
    expect(out).toMatchObject({
      status: 'completed',
      nodes: [{ id: 'node-0', stage: 'destroyed', exitCode: 0 }],
    });
    expect(output(out.outputsDir, 'node-0', 'said.txt')).toBe(
      'setting up\nhello there from rank 0\n',
    );
  });

  it('runs a 2-node SkyPilot task: both ranks come back', async () => {
    const { home, dir } = project({
      'task.yaml':
        'num_nodes: 2\nrun: |\n  echo "rank $SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES" > $TENDER_OUTPUT/rank.txt\n',
    });
    const r = await runCli(['run', join(dir, 'task.yaml'), '--json'], { home });
    expect(r.code, r.stderr).toBe(0);
    const out = lastJson(r.stdout);
    expect(out.status).toBe('completed');
    expect(output(out.outputsDir, 'node-0', 'rank.txt')).toBe('rank 0 of 2\n');
    expect(output(out.outputsDir, 'node-1', 'rank.txt')).toBe('rank 1 of 2\n');
  });

  it('runs a 2-node dstack task: both ranks come back', async () => {
    const { home, dir } = project({
      '.dstack.yml': [
        'type: task',
        'name: gang',
        'nodes: 2',
        'env:',
        '  - WHO',
        'commands:',
        '  - echo "$WHO rank $DSTACK_NODE_RANK of $DSTACK_NODES_NUM" > $TENDER_OUTPUT/rank.txt',
        '',
      ].join('\n'),
    });
    // A value-less variable is read from the environment, as dstack reads it.
    const r = await runCli(['run', join(dir, '.dstack.yml'), '--json'], {
      home,
      env: { WHO: 'dstack' },
    });
    expect(r.code, r.stderr).toBe(0);
    const out = lastJson(r.stdout);
    expect(out.status).toBe('completed');
    expect(output(out.outputsDir, 'node-0', 'rank.txt')).toBe('dstack rank 0 of 2\n');
    expect(output(out.outputsDir, 'node-1', 'rank.txt')).toBe('dstack rank 1 of 2\n');
  });
});

describe('import writes what it can', () => {
  it('warns by key (a value-less token, a bucket, a key outside, a fraction of a CPU); run names what is missing', async () => {
    const { home, dir } = project({
      'task.yaml': [
        'run: echo "$HF_TOKEN" | wc -c > $TENDER_OUTPUT/len.txt',
        'envs:',
        '  HF_TOKEN:',
        'file_mounts:',
        '  /outputs:',
        '    name: my-bucket',
        '    mode: MOUNT',
        '  ~/.ssh/id_rsa: ~/.ssh/id_rsa',
        'resources:',
        '  cpus: 0.5',
        '',
      ].join('\n'),
    });
    const imp = await runCli(['import', join(dir, 'task.yaml')], { home });
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toContain('HF_TOKEN = { secret = true, from_env = "HF_TOKEN" }');
    expect(imp.stdout).not.toContain('id_rsa');
    for (const line of [
      /task\.yaml: envs\.HF_TOKEN: → job\.env\.HF_TOKEN = \{ secret = true, from_env = "HF_TOKEN" \}; no value in the task/,
      /task\.yaml: file_mounts\."\/outputs": left out: a bucket mount \(a new bucket\) at \/outputs: .*lost at teardown.*\[job\] outputs/,
      /task\.yaml: file_mounts\."~\/\.ssh\/id_rsa": left out: .*nothing under ~\/\.ssh is ever copied/,
      /task\.yaml: resources\.cpus: left out: cpus 0\.5 has no Tender equivalent/,
    ])
      expect(imp.stderr).toMatch(line);

    const missing = await runCli(['run', join(dir, 'task.yaml')], { home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'HF_TOKEN has no value in the task and is not set in the environment',
    );
    expect(missing.stderr).toContain('--secret HF_TOKEN=@path');
    expect(existsSync(join(home, 'ledger.sqlite'))).toBe(false);

    const given = await runCli(['run', join(dir, 'task.yaml'), '--json'], {
      home,
      env: { HF_TOKEN: 'hf_abc' },
    });
    expect(given.code, given.stderr).toBe(0);
    const out = lastJson(given.stdout);
    expect(output(out.outputsDir, 'node-0', 'len.txt').trim()).toBe('7');
    expect(given.stdout + given.stderr).not.toContain('hf_abc');
  });
});

describe('bad input exits 2 with its message', () => {
  it.each([
    [
      'invalid YAML',
      'task.yaml',
      'run: echo\nresources: [a, b\n',
      /task\.yaml:3:1: invalid YAML: /,
    ],
    [
      'nothing to run',
      'task.yaml',
      'resources:\n  accelerators: A100\n',
      /task\.yaml: run: nothing to run: the task has no run commands\n.*add run: \| followed by the commands/s,
    ],
    [
      'an accelerator no marketplace sells',
      'task.yaml',
      'run: x\nresources:\n  accelerators: tpu-v3-8\n',
      /resources\.accelerators: no Tender marketplace \(vastai, runpod, lambda\) sells tpu-v3-8\n.*name a GPU they sell/s,
    ],
    [
      'a SkyPilot service',
      'task.yaml',
      'run: x\nservice:\n  readiness_probe: /\n',
      /service: a SkyPilot service \(sky serve\)/,
    ],
    [
      'a SkyPilot pipeline',
      'task.yaml',
      'name: p\n---\nrun: a\n---\nrun: b\n',
      /a SkyPilot pipeline of 3 chained tasks/,
    ],
    [
      'a dstack service',
      'svc.dstack.yml',
      'type: service\ncommands: [x]\nport: 80\n',
      /type: a dstack service keeps replicas/,
    ],
    [
      'neither tool',
      'task.yml',
      'name: x\nimage: y\n',
      /task\.yml: neither a SkyPilot task nor a dstack configuration: expected a SkyPilot task \(a mapping with one of run, setup, resources, num_nodes, envs, workdir, file_mounts\) or a dstack configuration \(type: task\)/,
    ],
  ])('%s', async (_what, name, text, message) => {
    const { home, dir } = project({ [name]: text });
    for (const cmd of ['import', 'run']) {
      const r = await runCli([cmd, join(dir, name)], { home });
      expect(r.code, `${cmd}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(existsSync(join(home, 'ledger.sqlite'))).toBe(false);
  });
});
