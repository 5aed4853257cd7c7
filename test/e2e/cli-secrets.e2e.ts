// Secrets given to the built CLI: from the environment, a file or a prompt, never the
// command line. The value reaches the job, and no process's command line
// (/proc/<pid>/cmdline) holds it at any moment of the run.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, REPO, runCli, useTempHomes, type CliResult } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

/** Every process's command line that holds `needle`, as "pid: cmdline". */
function cmdlinesHolding(needle: Buffer): string[] {
  const found: string[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`);
      if (cmd.includes(needle)) found.push(`${name}: ${cmd.toString().replace(/\0/g, ' ')}`);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** Runs the CLI while reading every process's command line every few ms until it exits. */
async function runWatchingCmdlines(
  args: string[],
  opts: { home: string; env: Record<string, string> },
  secret: string,
): Promise<{ result: CliResult; holders: string[]; scans: number }> {
  const needle = Buffer.from(secret);
  const holders: string[] = [];
  let scans = 0;
  let running = true;
  const watching = (async () => {
    while (running) {
      holders.push(...cmdlinesHolding(needle));
      scans++;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const result = await runCli(args, { ...opts, timeoutMs: 90_000 });
  running = false;
  await watching;
  return { result, holders, scans };
}

const hashOf = (s: string) => createHash('sha256').update(s).digest('hex');

function secretJob(root: string): string {
  return writeJob(
    root,
    'secret-job',
    `[job]
name = "secret-job"
setup = "mkdir -p out"
run = "printf %s \\"$API_TOKEN\\" | sha256sum | cut -d' ' -f1 > out/hash.txt; sleep 2"
outputs = ["out/hash.txt"]
`,
  );
}

function landedHash(stdout: string): string {
  const lines = stdout.trim().split('\n');
  const out = JSON.parse(lines[lines.length - 1]!) as { outputsDir: string };
  return readFileSync(join(out.outputsDir, 'node-0', 'outputs', 'out', 'hash.txt'), 'utf8').trim();
}

describe('secrets on the CLI', () => {
  it('the command-line watch sees a value that is on a command line (the control)', async () => {
    const secret = `tok-${randomBytes(12).toString('hex')}`;
    const child = spawn('sh', ['-c', 'sleep 0.5', secret]);
    await new Promise((r) => setTimeout(r, 100));
    expect(cmdlinesHolding(Buffer.from(secret))).toEqual([
      expect.stringContaining(`${child.pid}: sh -c sleep 0.5 ${secret}`),
    ]);
    await new Promise((r) => child.on('close', r));
  });

  it('--secret NAME takes $NAME: the job gets it, no command line ever holds it', async () => {
    const { home, root } = newHome();
    const secret = `tok-${randomBytes(12).toString('hex')}`;
    const { result, holders, scans } = await runWatchingCmdlines(
      ['run', secretJob(root), '--secret', 'API_TOKEN', '--json'],
      { home, env: { API_TOKEN: secret } },
      secret,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(landedHash(result.stdout)).toBe(hashOf(secret));
    expect(holders).toEqual([]);
    expect(scans).toBeGreaterThan(20); // the watch ran through the run
  });

  it('--secret NAME=@file and --secret-file: the file’s value reaches the job', async () => {
    const { home, root } = newHome();
    const secret = `tok-${randomBytes(12).toString('hex')}`;
    const file = join(root, 'token.txt');
    writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    const { result, holders } = await runWatchingCmdlines(
      ['run', secretJob(root), '--secret', `API_TOKEN=@${file}`, '--json'],
      { home, env: {} },
      secret,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(landedHash(result.stdout)).toBe(hashOf(secret));
    expect(holders).toEqual([]);

    const envFile = join(root, 'secrets.env');
    writeFileSync(envFile, `# for the job\nAPI_TOKEN=${secret}\n`, { mode: 0o600 });
    const again = await runCli(['run', secretJob(root), '--secret-file', envFile, '--json'], {
      home,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(landedHash(again.stdout)).toBe(hashOf(secret));
  });

  it('refuses a secret value on the command line (--secret K=V, --env TOKEN=V), naming the ways out', async () => {
    const { home, root } = newHome();
    const job = secretJob(root);
    const bySecret = await runCli(['run', job, '--secret', 'API_TOKEN=tok-in-argv'], { home });
    expect(bySecret.code).toBe(2);
    expect(bySecret.stderr).toContain('readable by every process on this machine (ps)');
    expect(bySecret.stderr).toContain('--secret API_TOKEN reads $API_TOKEN');
    expect(bySecret.stderr).toContain('--secret API_TOKEN=@path');
    expect(bySecret.stderr).not.toContain('tok-in-argv');

    const byEnv = await runCli(['run', job, '--env', 'HF_TOKEN=tok-in-argv'], { home });
    expect(byEnv.code).toBe(2);
    expect(byEnv.stderr).toContain('HF_TOKEN looks like a secret');
    expect(byEnv.stderr).not.toContain('tok-in-argv');

    const rerun = await runCli(['rerun', 'r-none', '--secret', 'API_TOKEN=tok-in-argv'], { home });
    expect(rerun.code).toBe(2);
    expect(rerun.stderr).toContain('readable by every process');
  });

  it('asks on a terminal, without echo, when $NAME is unset', async () => {
    const { home, root } = newHome();
    const secret = `tok-${randomBytes(12).toString('hex')}`;
    // A real pseudo-terminal (script(1)), so the CLI sees a TTY on stdin and stderr.
    const child = spawn(
      'script',
      [
        '-qfec',
        `${process.execPath} ${CLI} run ${secretJob(root)} --secret API_TOKEN --json`,
        '/dev/null',
      ],
      { env: cliEnv(home), cwd: REPO },
    );
    let seen = '';
    child.stdout.on('data', (c: Buffer) => (seen += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('close', r));
    const deadline = Date.now() + 30_000;
    while (!seen.includes('API_TOKEN (secret, not shown): ') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    child.stdin.write(`${secret}\r`);
    expect(await exited).toBe(0);
    expect(seen).not.toContain(secret); // not echoed
    const json = seen.slice(seen.lastIndexOf('{"runId"'));
    const { outputsDir } = JSON.parse(json.slice(0, json.indexOf('\n'))) as { outputsDir: string };
    expect(
      readFileSync(join(outputsDir, 'node-0', 'outputs', 'out', 'hash.txt'), 'utf8').trim(),
    ).toBe(hashOf(secret));
  });
});
