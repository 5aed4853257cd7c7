import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useTempHomes } from '../helpers/cli';
import { writeJob } from '../helpers/job-files';

const newHome = useTempHomes();

// A setup that stands in for `python -m venv $TENDER_ENV && pip install -r requirements.txt`:
// it counts its builds in the workspace's parent and puts a tool on the env's PATH.
const JOB = (setup = 'sh build.sh', builds = '/dev/null') => `[job]
name = "env"
setup = "${setup}"
setup_fingerprint = ["requirements.txt"]
run = "mytool && echo ENV=$TENDER_ENV VENV=$VIRTUAL_ENV"
env = { BUILDS = "${builds}" }
`;

const BUILD = `echo build >> "$BUILDS"
mkdir -p "$TENDER_ENV/bin"
printf '#!/bin/sh\\necho tool from the env\\n' > "$TENDER_ENV/bin/mytool"
chmod +x "$TENDER_ENV/bin/mytool"
`;

function envsOf(home: string): string[] {
  const dir = join(home, 'local', 'cache', 'envs');
  return existsSync(dir) ? readdirSync(dir).filter((n) => !n.endsWith('.lock')) : [];
}

describe('persistent setup environments (setup_fingerprint)', () => {
  it('builds once, skips setup while the fingerprint holds, rebuilds on a change or --fresh-setup', async () => {
    const { home, root } = newHome();
    const builds = join(root, 'builds.txt');
    const job = writeJob(root, 'ws', JOB('sh build.sh', builds), {
      'requirements.txt': 'torch==2.4\n',
      'build.sh': BUILD,
    });
    const run = (...extra: string[]) => runCli(['run', job, ...extra], { home });
    const countBuilds = () =>
      existsSync(builds) ? readFileSync(builds, 'utf8').split('\n').length - 1 : 0;

    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/tool from the env/);
    expect(first.stderr).toMatch(/building environment [0-9a-f]{16}/);
    const [key] = envsOf(home);
    expect(first.stdout).toContain(`ENV=${join(home, 'local', 'cache', 'envs', key!)}`);
    expect(first.stdout).toContain(`VENV=${join(home, 'local', 'cache', 'envs', key!)}`);
    expect(countBuilds()).toBe(1);

    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    // setup_fingerprint overrides the default list: build.sh, which setup names, is not keyed.
    expect(second.stderr).toMatch(
      /setup skipped: environment for `sh build\.sh` \+ requirements\.txt is ready \([0-9a-f]{16}\)/,
    );
    expect(second.stdout).toMatch(/tool from the env/); // the env is on PATH without a build
    expect(countBuilds()).toBe(1);

    writeFileSync(join(root, 'ws', 'requirements.txt'), 'torch==2.5\n');
    const changed = await run();
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toMatch(/building environment/);
    expect(countBuilds()).toBe(2);
    expect(envsOf(home)).toHaveLength(2); // the old one stays until pruned

    const fresh = await run('--fresh-setup');
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(
      /building environment [0-9a-f]{16} for `sh build\.sh` \+ requirements\.txt \(fresh setup asked for\)/,
    );
    expect(countBuilds()).toBe(3);
  });

  it('a failed setup never marks its environment ready: the next run builds again', async () => {
    const { home, root } = newHome();
    const job = writeJob(root, 'ws', JOB('exit 7'), { 'requirements.txt': 'x\n' });
    const first = await runCli(['run', job], { home });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/not marked ready: setup did not succeed/);
    const again = await runCli(['run', job], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/building environment/);
    expect(again.stderr).not.toMatch(/setup skipped/);
  });

  it('refuses a fingerprint file that is not in the workspace, with line:col and the fix', async () => {
    const { home, root } = newHome();
    const job = writeJob(root, 'ws', JOB().replace('requirements.txt', 'reqs.txt'));
    const r = await runCli(['run', job], { home });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /tender\.toml:4:\d+: setup_fingerprint file "reqs\.txt" does not exist/,
    );
  });
});

describe('setup cached by default (no setup_fingerprint)', () => {
  it("the README's setup line works as written, and the second run skips it", async () => {
    const { home, root } = newHome();
    const job = writeJob(
      root,
      'ws',
      `[job]
name = "readme"
setup = "python3 -m venv $TENDER_ENV && echo built"
run = "python -c 'import sys; print(sys.prefix)'"
`,
      { 'requirements.txt': 'numpy\n', 'train.py': 'lr = 1\n' },
    );
    const first = await runCli(['run', job], { home });
    expect(first.code, first.stderr).toBe(0);
    const [key] = envsOf(home);
    expect(first.stdout).toContain(join(home, 'local', 'cache', 'envs', key!)); // the venv's python
    writeFileSync(join(root, 'ws', 'train.py'), 'lr = 2\n');
    const second = await runCli(['run', job], { home });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(
      `setup skipped: environment for \`python3 -m venv $TENDER_ENV && echo built\` + requirements.txt is ready (${key})`,
    );
    expect(second.stdout).toContain(join(home, 'local', 'cache', 'envs', key!));
  });
});
