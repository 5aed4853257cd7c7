import { describe, expect, it } from 'vitest';
import { loginServer, refusedLoginText, registryOf } from './image-login';
import { PoolSpec } from './job';

describe('registryOf: the registry an image is pulled from (Docker’s rule)', () => {
  it.each([
    ['ubuntu', 'docker.io'],
    ['ubuntu:22.04', 'docker.io'],
    ['pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime', 'docker.io'],
    ['lab/train', 'docker.io'],
    ['library/ubuntu@sha256:abc', 'docker.io'],
    ['ghcr.io/lab/train:1', 'ghcr.io'],
    ['nvcr.io/nvidia/pytorch:24.05-py3', 'nvcr.io'],
    ['registry.example.com:5000/team/img', 'registry.example.com:5000'],
    ['localhost/img', 'localhost'],
    ['localhost:5000/img:tag', 'localhost:5000'],
    ['myhost:5000/img', 'myhost:5000'],
    ['MyRegistry/img', 'MyRegistry'],
    ['1234.dkr.ecr.eu-west-1.amazonaws.com/repo:tag', '1234.dkr.ecr.eu-west-1.amazonaws.com'],
    ['index.docker.io/lab/train', 'docker.io'],
    ['registry-1.docker.io/lab/train', 'docker.io'],
    ['  ghcr.io/lab/x  ', 'ghcr.io'],
  ])('%s → %s', (image, server) => {
    expect(registryOf(image)).toBe(server);
  });

  it('server overrides the image’s registry', () => {
    expect(loginServer({ server: 'mirror.lab.org' }, 'lab/train')).toBe('mirror.lab.org');
    expect(loginServer({}, 'ghcr.io/lab/train')).toBe('ghcr.io');
  });

  it('a refused login names the registry, the user and the variable', () => {
    expect(
      refusedLoginText({ username: 'lab-bot', password_env: 'GHCR_TOKEN' }, 'ghcr.io/lab/t:1'),
    ).toBe('ghcr.io refused the login for lab-bot: check GHCR_TOKEN');
  });
});

describe('[pool] image_login, checked with the pool', () => {
  const base = { provider: 'vastai', image: 'ghcr.io/lab/train:1' };
  const problem = (pool: Record<string, unknown>) => {
    const r = PoolSpec.safeParse(pool);
    return r.success ? null : `${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`;
  };

  it.each([
    [{ username: 'lab-bot', password_env: 'GHCR_TOKEN' }, null],
    [{ username: 'lab-bot', password_env: 'GHCR_TOKEN', server: 'ghcr.io' }, null],
    [{ username: 'lab-bot', password_env: 'GHCR_TOKEN', server: 'reg.lab.org:5000' }, null],
    [
      { username: 'lab-bot', password_env: 'GHCR_TOKEN', password: 'hunter2' },
      'image_login.password: image_login takes no password: name the variable that holds it, password_env = "GHCR_TOKEN", and set that variable (or pass --secret GHCR_TOKEN)',
    ],
    [
      { username: 'lab-bot', password_env: 'ghcr-token' },
      'image_login.password_env: image_login.password_env names an environment variable that holds the password, e.g. "GHCR_TOKEN"',
    ],
    [
      { username: 'lab-bot' },
      'image_login.password_env: Invalid input: expected string, received undefined',
    ],
    [
      { username: 'lab-bot', password_env: 'T', server: 'https://ghcr.io' },
      'image_login.server: image_login.server is a registry host such as "ghcr.io" or "registry.example.com:5000" (no https://, no path)',
    ],
    [
      { username: 'lab bot', password_env: 'T' },
      'image_login.username: image_login.username has no spaces',
    ],
  ])('%j → %s', (login, expected) => {
    expect(problem({ ...base, image_login: login })).toBe(expected);
  });

  it('a login without an image is refused, naming the fix', () => {
    expect(problem({ provider: 'vastai', image_login: { username: 'u', password_env: 'T' } })).toBe(
      'image_login: image_login logs in to the registry of the pool\'s image: set image = "…" too (e.g. "ghcr.io/lab/train:1")',
    );
  });

  it('the password never appears in a refusal', () => {
    const r = PoolSpec.safeParse({
      ...base,
      image_login: { username: 'u', password_env: 'T', password: 'hunter2-secret' },
    });
    expect(JSON.stringify(r.error?.issues)).not.toContain('hunter2');
  });
});
