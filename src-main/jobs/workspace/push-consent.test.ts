import { describe, expect, it } from 'vitest';
import { isInside, pushConsentProblems } from './push-consent';

const none = { pushSecrets: false, workdirOutside: false };
const ENV = { path: '.env', pattern: '.env' };
const KEY = { path: 'keys/id_rsa', pattern: 'id_rsa' };

describe('isInside', () => {
  it.each([
    ['/p/job', '/p/job', true],
    ['/p/job/src', '/p/job', true],
    ['/p/job/..', '/p/job', false],
    ['/p', '/p/job', false],
    ['/p/jobs-other', '/p/job', false],
    ['/home/u', '/p/job', false],
    ['/p/job/..data', '/p/job', true],
  ])('%s in %s → %s', (w, j, is) => expect(isInside(w, j)).toBe(is));
});

describe('pushConsentProblems', () => {
  it.each([
    ['nothing to say', '/p/job', [], none, []],
    ['a .env and a key, not chosen', '/p/job', [ENV, KEY], none, ['2 files look like secrets']],
    ['one, not chosen', '/p/job', [ENV], none, ['a file looks like a secret']],
    ['pushed knowingly', '/p/job', [ENV], { ...none, pushSecrets: true }, []],
    ['workdir = ".."', '/p', [], none, ['outside the job file']],
    ['outside, chosen', '/p', [], { ...none, workdirOutside: true }, []],
    ['both', '/p', [ENV], none, ['outside the job file', 'a file looks like a secret']],
  ])('%s', (_what, workdir, secrets, choices, says) => {
    const problems = pushConsentProblems({ workdir, jobDir: '/p/job', secrets }, choices);
    expect(problems.map((p) => says.find((s) => p.text.includes(s)))).toEqual(says);
  });

  it('names each file and both ways out', () => {
    const [p] = pushConsentProblems(
      { workdir: '/p/job', jobDir: '/p/job', secrets: [ENV, KEY] },
      none,
    );
    expect(p!.text).toContain('.env (matches .env), keys/id_rsa (matches id_rsa)');
    expect(p!.hint).toContain('add /.env, /keys/id_rsa to exclude in [job.workspace]');
    expect(p!.hint).toContain('push_secrets = true');
    expect(p!.hint).toContain('--push-secrets');
    const [q] = pushConsentProblems({ workdir: '/p', jobDir: '/p/job', secrets: [] }, none);
    expect(q!.hint).toContain('workdir_outside = true');
    expect(q!.hint).toContain('--workdir-outside');
  });
});
