import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BadInputError } from '../../base/bad-input-error';
import { rejection } from './job-file.test-util';
import { loadJobFile, parseJobToml, redactJob } from './job-file';

const KNOWN_PROVIDERS = ['local', 'ssh', 'vastai'];
const SECRET = 'hf_s3cr3t_value';
const ENV = { HF_TOKEN: SECRET, EMPTY: '' };
const HEAD = '[job]\nname = "hello"\nrun = "python train.py"\n'; // lines 1-3

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tender-job-file-'));
  file = path.join(dir, 'tender.toml');
  await mkdir(path.join(dir, 'src'));
  await writeFile(path.join(dir, 'notes.txt'), 'not a folder');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(toml: string) {
  await writeFile(file, toml);
  return loadJobFile(file, { knownProviders: KNOWN_PROVIDERS, env: ENV });
}

const failure = (toml: string): Promise<BadInputError> => rejection(() => load(toml));

describe('[sweep]', () => {
  test("axes and cells become the job's sweep, values as text", async () => {
    const { job } = await load(
      `${HEAD}params = { EPOCHS = "3" }\n[sweep]\nLR = ["1e-4", 3e-4]\nSEED = [1, 2]\ncells = [{ LR = "1e-2", SEED = "7" }]\n`,
    );
    expect(job.sweep).toEqual({
      axes: { LR: ['1e-4', '0.0003'], SEED: ['1', '2'] },
      cells: [{ LR: '1e-2', SEED: '7' }],
    });
    expect(job.params).toEqual({ EPOCHS: '3' });
  });
});

describe('rejects bad job files with a one-line message at the right place', () => {
  // [what, file text, expected message after "<file>:"]
  // One row per case, kept as a table.
  // prettier-ignore
  const cases: [string, string, string][] = [
    ['unterminated string', '[job]\nname = "hello\nrun = "x"\n', '2:14: invalid TOML: '],
    ['missing value', '[job]\nname =\nrun = "x"\n', '2:7: invalid TOML: invalid value'],
    ['duplicate key', `${HEAD}run = "again"\n`, '4:1: invalid TOML: '],
    ['unsafe key', `${HEAD}params = { __proto__ = "1" }\n`, '4:12: invalid TOML: '],
    ['empty file', '', ' missing [job] table'],
    ['only a pool', '[pool]\nprovider = "local"\n', ' missing [job] table'],
    ['typo in a table name', '[jobs]\nname = "x"\n', '1:1: unknown table [jobs]; did you mean [job]?'],
    ['key above [job]', 'name = "x"\n[job]\nrun = "y"\n', '1:1: key "name" must be inside [job]'],
    ['unknown top-level key', `colour = "red"\n${HEAD}`, '1:1: unknown table [colour]'],
    ['typo in [job]', `${HEAD}outptus = ["a"]\n`, '4:1: unknown key "outptus" in [job]; did you mean "outputs"?'],
    ['case slip in [job]', `${HEAD}Setup = "x"\n`, '4:1: unknown key "Setup" in [job]; did you mean "setup"?'],
    ['unknown key in [job]', `${HEAD}  colour = "red"\n`, '4:3: unknown key "colour" in [job]'],
    ['[[job]] instead of [job]', '[[job]]\nname = "x"\nrun = "y"\n', '1:1: job must be a table, not an array'],
    ['job as a value', 'job = "x"\n', '1:1: job must be a table, not a string'],
    ['pool key in [job]', `${HEAD}count = 2\n`, '4:1: key "count" belongs in [pool], not [job]'],
    ['typo in [pool]', `${HEAD}[pool]\nprovder = "local"\n`, '5:1: unknown key "provder" in [pool]; did you mean "provider"?'],
    ['typo in inline workspace', `${HEAD}workspace = { workdir = ".", exlude = [] }\n`, '4:30: unknown key "exlude" in job.workspace; did you mean "exclude"?'],
    ['typo in [job.workspace]', `${HEAD}[job.workspace]\nworkdri = "."\n`, '5:1: unknown key "workdri" in job.workspace; did you mean "workdir"?'],
    ['typo in a secret', `${HEAD}env = { T = { secret = true, form_env = "HF_TOKEN" } }\n`, '4:30: unknown key "form_env" in job.env.T; did you mean "from_env"?'],
    ['missing run', '[job]\nname = "hello"\n', '1:1: [job] is missing "run"'],
    ['empty sweep axis', `${HEAD}[sweep]\nLR = []\n`, '5:1: sweep axis LR is empty: a sweep over no values runs nothing'],
    ['sweep axis not a list', `${HEAD}[sweep]\nLR = "1e-4"\n`, '5:1: sweep axis LR must be a list of values, not a string'],
    ['sweep axis bad name', `${HEAD}[sweep]\nlearning-rate = ["1"]\n`, '5:1: sweep axis "learning-rate" is not a valid param name'],
    ['sweep value twice', `${HEAD}[sweep]\nSEED = [1, 1]\n`, '5:12: sweep axis SEED lists "1" twice'],
    ['sweep cell bad name', `${HEAD}[sweep]\ncells = [{ "9x" = "1" }]\n`, '5:12: "9x" is not a valid param name'],
    ['empty sweep', `${HEAD}[sweep]\n`, '4:1: [sweep] has no axis and no cells'],
    ['distributed on one node', `${HEAD}distributed = true\n`, '4:1: distributed = true needs count ≥ 2 (the pool has 1 node)'],
    ['distributed sweep', `${HEAD}distributed = true\n[pool]\ncount = 2\n[sweep]\nA = ["1"]\n`, '4:1: a distributed job cannot also be a sweep'],
    ['a port out of range', `${HEAD}ports = [70000]\n`, '4:10: job.ports[0] must be at most 65535'],
    ['a bad forward pair', `${HEAD}ports = ["6006-16006"]\n`, '4:10: job.ports[0]: a forward is "NODE_PORT:LOCAL_PORT"'],
    ['a bad remote port', `${HEAD}remote_ports = ["5000:5000"]\n`, '4:17: job.remote_ports[0]: a remote port is "NODE_PORT:HOST:PORT"'],
    ['a master port of 0', `${HEAD}master_port = 0\n`, '4:1: job.master_port must be at least 1'],
    ['sweep inside [job]', `${HEAD}sweep = { LR = ["1"] }\n`, '4:1: unknown key "sweep" in [job]'],
    ['missing name', '\n[job]\nrun = "x"\n', '2:1: [job] is missing "name"'],
    ['run not a string', '[job]\nname = "hello"\nrun = 5\n', '3:1: job.run must be a string, not an integer'],
    ['empty name', '[job]\nname = ""\nrun = "x"\n', '2:1: job.name must not be empty'],
    ['long name', `[job]\nname = "${'n'.repeat(201)}"\nrun = "x"\n`, '2:1: job.name must be at most 200 characters'],
    ['empty setup', `${HEAD}setup = ""\n`, '4:1: job.setup must not be empty'],
    ['outputs not an array', `${HEAD}outputs = "out"\n`, '4:1: job.outputs must be an array, not a string'],
    ['an output not a string', `${HEAD}outputs = [\n  "a",\n  2,\n]\n`, '6:3: job.outputs[1] must be a string, not an integer'],
    ['env value not a string', `${HEAD}env = { SEED = 1 }\n`, '4:9: job.env.SEED must be a string, not an integer'],
    ['env value an array', `${HEAD}[job.env]\nSEED = [1]\n`, '5:1: job.env.SEED must be a string or a secret table, not an array'],
    ['param not a string', `${HEAD}params.LR = 3e-4\n`, '4:8: job.params.LR must be a string, not a float'],
    ['secret = false', `${HEAD}env = { T = { secret = false, value = "v" } }\n`, '4:15: job.env.T.secret must be true'],
    ['secret value not a string', `${HEAD}env = { T = { secret = true, value = 7 } }\n`, '4:30: job.env.T.value must be a string, not an integer'],
    ['secret with both sources', `${HEAD}env = { T = { secret = true, value = "v", from_env = "HF_TOKEN" } }\n`, '4:9: job.env.T has both value and from_env; keep one'],
    ['secret with no source', `${HEAD}env = { T = { secret = true } }\n`, '4:9: job.env.T is a secret with no source; add from_env = "VAR" or value = "…"'],
    ['secret from an unset variable', `${HEAD}env = { T = { secret = true, from_env = "NOT_SET_ANYWHERE" } }\n`, '4:30: job.env.T: environment variable NOT_SET_ANYWHERE is not set'],
    ['secret from an empty variable', `${HEAD}env = { T = { secret = true, from_env = "EMPTY" } }\n`, '4:30: job.env.T: environment variable EMPTY is not set'],
    ['env name with a dash', `${HEAD}env = { "MY-VAR" = "x" }\n`, '4:9: env name "MY-VAR" is not a valid variable name'],
    ['env name PATH', `${HEAD}env = { PATH = "/x" }\n`, '4:9: env name "PATH" is reserved: Tender sets it on the node'],
    ['env name TENDER_', `${HEAD}env = { TENDER_JOB_ID = "x" }\n`, '4:9: env name "TENDER_JOB_ID" is reserved: Tender sets it on the node'],
    ['params that collide', `${HEAD}params = { lr = "1", LR = "2" }\n`, '4:22: params "lr" and "LR" both become TENDER_PARAM_LR; rename one'],
    ['absolute output', `${HEAD}outputs = ["out/a", "/etc/passwd"]\n`, '4:21: outputs entry "/etc/passwd" is absolute; write it relative to the workspace'],
    ['drive-letter output', `${HEAD}outputs = ['C:\\out']\n`, '4:12: outputs entry "C:\\out" is absolute; write it relative to the workspace'],
    ['output above the workspace', `${HEAD}outputs = ["../x"]\n`, '4:12: outputs entry "../x" points outside the workspace'],
    ['output escaping after normalising', `${HEAD}outputs = ["a/../../x"]\n`, '4:12: outputs entry "a/../../x" points outside the workspace'],
    ['a pull_stall too short', `${HEAD}[pool]\npull_stall = "10s"\n`, '5:1: pool.pull_stall: pull_stall must be a duration from 1m to 24h, e.g. "15m": how long an image pull may make no progress before its host is given up'],
    ['a pull_stall of none', `${HEAD}[pool]\npull_stall = "none"\n`, '5:1: pool.pull_stall: pull_stall must be a duration from 1m to 24h, e.g. "15m": how long an image pull may make no progress before its host is given up'],
    ['unknown provider', `${HEAD}[pool]\nprovider = "aws"\n`, '5:1: unknown provider "aws"; known providers: local, ssh, vastai'],
    ['count a float', `${HEAD}[pool]\ncount = 1.5\n`, '5:1: pool.count must be an integer, not a float'],
    ['count a string', `${HEAD}[pool]\ncount = "2"\n`, '5:1: pool.count must be a number, not a string'],
    ['count zero', `${HEAD}[pool]\ncount = 0\n`, '5:1: pool.count must be at least 1'],
    ['count too big', `${HEAD}[pool]\ncount = 65\n`, '5:1: pool.count must be at most 64'],
    ['host_setup a string', `${HEAD}host_setup = "apt-get install -y ffmpeg"\n`, '4:1: job.host_setup must be an array, not a string'],
    ['host_setup entry a number', `${HEAD}host_setup = [1]\n`, '4:15: job.host_setup[0] must be a command string or a { script = "…" } table, not an integer'],
    ['host_setup entry an array', `${HEAD}host_setup = [["a"]]\n`, '4:15: job.host_setup[0] must be a command string or a { script = "…" } table, not an array'],
    ['host_setup table without script', `${HEAD}host_setup = [{ name = "x" }]\n`, '4:15: job.host_setup[0] is missing "script"'],
    ['host_setup refresh not a boolean', `${HEAD}host_setup = [{ script = "x", refresh_capabilities = "yes" }]\n`, '4:31: job.host_setup[0].refresh_capabilities must be a boolean, not a string'],
    ['host_setup secret not in env', `${HEAD}host_setup = [{ script = "login", secrets = ["HF_TOKEN"] }]\n`, '4:35: job.host_setup[0].secrets names HF_TOKEN, which [job.env] does not have'],
    ['bootstrap_script empty', `${HEAD}bootstrap_script = ""\n`, '4:1: job.bootstrap_script must not be empty'],
    ['run_setup not a string', `${HEAD}run_setup = ["a"]\n`, '4:1: job.run_setup must be a string, not an array'],
    ['verify a string', `${HEAD}[pool]\nverify = "nvidia-smi"\n`, '5:1: pool.verify must be an array, not a string'],
    ['first problem in the file wins', `[pool]\ncount = 0\n${HEAD}outputs = 3\n`, '2:1: pool.count must be at least 1'],
    ['CRLF line ends', '[job]\r\nname = "hello"\r\nrun = "x"\r\n  outptus = []\r\n', '4:3: unknown key "outptus" in [job]; did you mean "outputs"?'],
  ];

  test.each(cases)('%s', async (_what, toml, expected) => {
    const err = await failure(toml);
    expect(err.message.startsWith(`${file}:${expected}`), err.message).toBe(true);
    expect(err.message).not.toContain('\n');
    expect(err.code).toBe('bad_input');
    expect(err.file).toBe(file);
    const position = /^(\d+):(\d+):/.exec(expected);
    expect(err.line).toBe(position ? Number(position[1]) : undefined);
    expect(err.column).toBe(position ? Number(position[2]) : undefined);
  });

  test('host_setup that is not a list of commands says how to write one', async () => {
    expect((await failure(`${HEAD}host_setup = "apt-get install -y ffmpeg"\n`)).hint).toMatch(
      /^host_setup is a list of commands run in order: host_setup = \["apt-get install -y ffmpeg"\]/,
    );
    expect((await failure(`${HEAD}host_setup = [1]\n`)).hint).toBe('quote the entry: "1"');
  });

  test('an unknown key lists what the table accepts as the hint', async () => {
    const err = await failure(`${HEAD}outptus = []\n`);
    expect(err.hint).toBe(
      '[job] accepts: name, run, setup, workspace, outputs, env, params, setup_fingerprint, setup_cache, host_setup, bootstrap_script, run_setup, checkpoints, constraints, distributed, stop, master_port, ports, remote_ports, cache, checkpoint_every',
    );
  });

  test('a number where a string belongs hints at quoting it', async () => {
    const err = await failure(`${HEAD}env = { SEED = 1 }\n`);
    expect(err.hint).toBe('quote it: SEED = "1"');
  });

  test('a secret value of the wrong type is not echoed', async () => {
    const err = await failure(`${HEAD}env = { T = { secret = true, value = 918273645 } }\n`);
    expect(err.hint).toBe('put the value in quotes: value = "…"');
    expect(`${err.message} ${err.hint}`).not.toContain('918273645');
  });

  test('a missing secret variable is named, and no value is printed', async () => {
    const err = await failure(
      `${HEAD}env = { T = { secret = true, from_env = "NOT_SET" }, U = { secret = true, from_env = "HF_TOKEN" } }\n`,
    );
    expect(err.message).toContain('NOT_SET');
    expect(`${err.message} ${err.hint}`).not.toContain(SECRET);
  });

  test('a workdir that does not exist', async () => {
    const err = await failure(`${HEAD}workspace = { workdir = "nope" }\n`);
    expect(err.message).toBe(`${file}:4:15: workdir does not exist: ${path.join(dir, 'nope')}`);
  });

  test('a workdir that is a file', async () => {
    const err = await failure(`${HEAD}[job.workspace]\nworkdir = "notes.txt"\n`);
    expect(err.message).toBe(
      `${file}:5:1: workdir is not a folder: ${path.join(dir, 'notes.txt')}`,
    );
  });

  test('a job file that does not exist', () => {
    const missing = path.join(dir, 'nope.toml');
    expect(() => loadJobFile(missing, { knownProviders: KNOWN_PROVIDERS })).toThrow(
      new BadInputError(`no such file: ${missing}`, { file: missing }),
    );
  });

  test('a folder without tender.toml', () => {
    const sub = path.join(dir, 'src');
    expect(() => loadJobFile(sub, { knownProviders: KNOWN_PROVIDERS })).toThrow(
      `no such file: ${path.join(sub, 'tender.toml')}`,
    );
  });

  test('text from the composer is placed under the label it was given', () => {
    const parse = () =>
      parseJobToml('[job]\nname = "x"\n', {
        file: '<composer>',
        baseDir: dir,
        knownProviders: KNOWN_PROVIDERS,
      });
    expect(parse).toThrow('<composer>:1:1: [job] is missing "run"');
  });
});

describe('loads good job files', () => {
  test('the documented example, exactly', async () => {
    const loaded = await load(`
[job]                      # what to do: nothing about hardware
name = "hello"
setup = "pip install -r requirements.txt"
run = "python train.py"
workspace = { workdir = "src", exclude = ["/data", "*.ckpt"] }
outputs = ["out/metrics.json", "./out/plots/"]
env = { SEED = "1", HF_TOKEN = { secret = true, from_env = "HF_TOKEN" }, API = { secret = true, value = "inline" } }
params = { LR = "3e-4" }

[pool]
provider = "ssh"
count = 2
verify = ["nvidia-smi"]
hosts = ["lab1", "lab2"]
`);
    expect(loaded).toEqual({
      file,
      job: {
        name: 'hello',
        setup: 'pip install -r requirements.txt',
        run: 'python train.py',
        workspace: { workdir: path.join(dir, 'src'), exclude: ['/data', '*.ckpt'] },
        outputs: ['out/metrics.json', 'out/plots/'],
        env: {
          SEED: '1',
          HF_TOKEN: { secret: true, value: SECRET },
          API: { secret: true, value: 'inline' },
        },
        params: { LR: '3e-4' },
        setup_fingerprint: [],
        setup_cache: true,
        host_setup: [],
        constraints: [],
        distributed: false,
        stop: 'all',
        master_port: 29500,
        ports: [],
        remote_ports: [],
        cache: false,
      },
      pool: {
        provider: 'ssh',
        count: 2,
        verify: ['nvidia-smi'],
        offers: [],
        hosts: ['lab1', 'lab2'],
      },
      policy: {},
    });
  });

  test('defaults: the workspace is the job file folder, the pool is one local node', async () => {
    const loaded = await load(HEAD);
    expect(loaded).toEqual({
      file,
      job: {
        name: 'hello',
        run: 'python train.py',
        workspace: { workdir: dir, exclude: [] },
        outputs: [],
        env: {},
        params: {},
        setup_fingerprint: [],
        setup_cache: true,
        host_setup: [],
        constraints: [],
        distributed: false,
        stop: 'all',
        master_port: 29500,
        ports: [],
        remote_ports: [],
        cache: false,
      },
      pool: { provider: 'local', count: 1, verify: [], offers: [], hosts: [] },
      policy: {},
    });
    expect('setup' in loaded.job).toBe(false);
  });

  test('a workspace table without workdir still defaults to the job file folder', async () => {
    const loaded = await load(`${HEAD}[job.workspace]\nexclude = ["*.ckpt"]\n`);
    expect(loaded.job.workspace).toEqual({ workdir: dir, exclude: ['*.ckpt'] });
  });

  test('an absolute workdir is kept', async () => {
    const abs = path.join(dir, 'src');
    const loaded = await load(`${HEAD}workspace = { workdir = ${JSON.stringify(abs)} }\n`);
    expect(loaded.job.workspace?.workdir).toBe(abs);
  });

  test('a folder loads the tender.toml inside it', async () => {
    await writeFile(file, HEAD);
    expect(loadJobFile(dir, { knownProviders: KNOWN_PROVIDERS }).file).toBe(file);
  });

  test('in-memory text resolves the workdir against baseDir', () => {
    const loaded = parseJobToml(`${HEAD}workspace = { workdir = "src" }\n`, {
      file: '<composer>',
      baseDir: dir,
      knownProviders: KNOWN_PROVIDERS,
    });
    expect(loaded.job.workspace?.workdir).toBe(path.join(dir, 'src'));
    expect(loaded.file).toBe('<composer>');
  });

  test('from_env reads process.env when no env is given', async () => {
    process.env.TENDER_JOB_FILE_TEST_SECRET = 'from-process';
    try {
      await writeFile(
        file,
        `${HEAD}env = { T = { secret = true, from_env = "TENDER_JOB_FILE_TEST_SECRET" } }\n`,
      );
      const loaded = loadJobFile(file, { knownProviders: KNOWN_PROVIDERS });
      expect(loaded.job.env.T).toEqual({ secret: true, value: 'from-process' });
    } finally {
      delete process.env.TENDER_JOB_FILE_TEST_SECRET;
    }
  });
});

describe('redactJob', () => {
  test('replaces every secret value and nothing else, leaving the input as it was', async () => {
    const { job } = await load(
      `${HEAD}env = { SEED = "1", HF_TOKEN = { secret = true, from_env = "HF_TOKEN" }, B = { secret = true, value = "b-secret" } }\n`,
    );
    const redacted = redactJob(job);
    expect(redacted.env).toEqual({
      SEED: '1',
      HF_TOKEN: { secret: true, value: '***' },
      B: { secret: true, value: '***' },
    });
    expect(JSON.stringify(redacted)).not.toMatch(/hf_s3cr3t_value|b-secret/);
    expect(job.env.HF_TOKEN).toEqual({ secret: true, value: SECRET });
    expect({ ...redacted, env: job.env }).toEqual(job);
  });
});

describe('[policy]', () => {
  test('durations, budget and after_job become the run policy; left-out keys stay out', async () => {
    const loaded = await load(
      `${HEAD}[policy]\nmax_duration = "6h"\nidle_timeout = "20m"\nbudget_usd = 25\nafter_job = "keep_warm"\n`,
    );
    expect(loaded.policy).toEqual({
      maxDurationMs: 6 * 3_600_000,
      idleTimeoutMs: 20 * 60_000,
      budgetUsd: 25,
      afterJob: 'keep_warm',
    });
    expect((await load(HEAD)).policy).toEqual({});
  });

  test('"none" turns a limit off', async () => {
    expect((await load(`${HEAD}[policy]\nmax_duration = "none"\n`)).policy).toEqual({
      maxDurationMs: null,
    });
  });

  test('a bad duration names the key, its line and what to write', async () => {
    const err = await failure(`${HEAD}[policy]\nidle_timeout = "twenty minutes"\n`);
    expect(err.message).toMatch(/tender\.toml:5:\d+: .*not a duration/);
    expect(err.message).toMatch(/"20m"/);
  });

  test('a typo in [policy] suggests the key', async () => {
    const err = await failure(`${HEAD}[policy]\nbudget = 25\n`);
    expect(err.message).toMatch(/unknown key "budget"/);
    expect(err.hint).toMatch(/budget_usd/);
  });

  test('idle_gpu_util_below is a percentage, off unless written', async () => {
    expect((await load(`${HEAD}[policy]\nidle_gpu_util_below = 5\n`)).policy).toEqual({
      idleGpuUtilBelow: 5,
    });
    for (const [value, why] of [
      ['0', /above 0/],
      ['150', /at most 100/],
      ['"5%"', /must be a number/],
    ] as const) {
      const err = await failure(`${HEAD}[policy]\nidle_gpu_util_below = ${value}\n`);
      expect(err.message).toMatch(/tender\.toml:5:\d+: /);
      expect(err.message).toMatch(why);
    }
  });

  test('after_job must be destroy or keep_warm', async () => {
    const err = await failure(`${HEAD}[policy]\nafter_job = "stop"\n`);
    expect(err.message).toMatch(/after_job/);
  });
});
