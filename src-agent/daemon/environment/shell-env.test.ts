import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shellEnvScript, writeShellEnv } from './shell-env';

const base = { PATH: '/usr/bin:/bin', HOME: '/root', LANG: 'C.UTF-8' };

describe('shellEnvScript', () => {
  it('exports what the job adds or changes, never a secret, and sources back to the same values', () => {
    const task = {
      ...base,
      LANG: 'en_US.UTF-8',
      PATH: '/env/bin:/usr/bin:/bin',
      LR: "3e-4 it's",
      TENDER_ENV: '/env',
      TENDER_JOB_ID: 'j1',
      HF_TOKEN: 'hf_secret_value',
      'BAD-NAME': 'x',
    };
    const script = shellEnvScript(task, base, ['HF_TOKEN']);
    expect(script).not.toContain('hf_secret_value');
    expect(script).not.toContain('HF_TOKEN');
    expect(script).not.toContain('HOME');
    expect(script).not.toContain('BAD-NAME');
    expect(script).toContain(`export PATH='/env/bin:'"$PATH"\n`);
    const out = execFileSync(
      'sh',
      ['-c', `${script}\nprintf '%s|%s|%s|%s' "$LR" "$PATH" "$TENDER_JOB_ID" "$LANG"`],
      { env: base, encoding: 'utf8' },
    );
    expect(out).toBe("3e-4 it's|/env/bin:/usr/bin:/bin|j1|en_US.UTF-8");
  });
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('writeShellEnv', () => {
  it('writes <D>/env.sh and ~/.tender/env, both 0600', () => {
    const home = mkdtempSync(join(tmpdir(), 'tender-shellenv-'));
    dirs.push(home);
    const d = join(home, '.tender', 'nodes', 'tender-ab-r-1-node-0');
    mkdirSync(d, { recursive: true });
    writeShellEnv(d, "export A='1'\n");
    expect(readFileSync(join(d, 'env.sh'), 'utf8')).toBe("export A='1'\n");
    expect(readFileSync(join(home, '.tender', 'env'), 'utf8')).toBe(`. '${join(d, 'env.sh')}'\n`);
    expect(statSync(join(d, 'env.sh')).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.tender', 'env')).mode & 0o777).toBe(0o600);
    const out = execFileSync('sh', ['-c', `. '${join(home, '.tender', 'env')}'; echo $A`], {
      encoding: 'utf8',
    });
    expect(out).toBe('1\n');
  });

  it('a node folder elsewhere (a local node) gets env.sh only', () => {
    const d = mkdtempSync(join(tmpdir(), 'tender-shellenv-local-'));
    dirs.push(d);
    writeShellEnv(d, '\n');
    expect(readFileSync(join(d, 'env.sh'), 'utf8')).toBe('\n');
  });
});
