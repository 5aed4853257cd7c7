import { describe, expect, it } from 'vitest';
import { loginMetadata, pullRefused, pullRefusalIn, resolveLogin } from './image-login';

const login = { username: 'lab-bot', password_env: 'GHCR_TOKEN' };
const IMAGE = 'ghcr.io/lab/train:1';

describe('pullRefusalIn: a registry refusing the pull, in a status line', () => {
  it.each([
    [
      'Error response from daemon: Head "https://ghcr.io/v2/lab/train/manifests/1": unauthorized',
      true,
    ],
    [
      'Error response from daemon: Get "https://ghcr.io/v2/": unauthorized: incorrect username or password',
      true,
    ],
    [
      "pull access denied for lab/train, repository does not exist or may require 'docker login'",
      true,
    ],
    [
      'error pulling image: Head "https://x.dkr.ecr.eu-west-1.amazonaws.com/v2/a/manifests/latest": no basic auth credentials',
      true,
    ],
    ['Pulling image ghcr.io/lab/train:1', false],
    ['success, running ghcr.io/lab/train_1/ssh', false],
    ['OCI runtime create failed: nvml error: driver not loaded', false],
    [null, false],
  ])('%s → %s', (status, refused) => {
    expect(pullRefusalIn(status) !== null).toBe(refused);
  });
});

describe('pullRefused: the run’s failure, named', () => {
  it('with a login: the registry, the user and the variable to check', () => {
    const err = pullRefused({ image: IMAGE, ...loginMetadata(login, IMAGE) }, 'unauthorized');
    expect(err.message).toBe('ghcr.io refused the login for lab-bot: check GHCR_TOKEN');
    expect(err.opts).toMatchObject({ fatal: true, notTheHost: true });
  });

  it('without one: the image needs a login', () => {
    const err = pullRefused({ image: IMAGE }, 'unauthorized');
    expect(err.message).toBe(`the registry refused to pull ${IMAGE} without a login`);
    expect(err.opts.hint).toContain('image_login = {');
  });

  it('a lease keeps the login by name, never its password', () => {
    expect(loginMetadata({ ...login, server: 'mirror.lab.org' }, IMAGE)).toEqual({
      image_login: 'lab-bot@mirror.lab.org',
      image_login_env: 'GHCR_TOKEN',
    });
  });
});

describe('resolveLogin: the password read when a create sends it', () => {
  it('reads it by the variable’s name', () => {
    expect(
      resolveLogin(login, IMAGE, { secret: (n) => (n === 'GHCR_TOKEN' ? 'tok' : undefined) }),
    ).toEqual({
      server: 'ghcr.io',
      username: 'lab-bot',
      password: 'tok',
    });
  });

  it('no login: nothing to send', () => {
    expect(resolveLogin(undefined, IMAGE, {})).toBeNull();
  });

  it('a password nobody gave is named by its variable, and not the host’s fault', () => {
    let error: unknown;
    try {
      resolveLogin(login, IMAGE, { secret: () => undefined });
    } catch (err) {
      error = err;
    }
    expect((error as Error).message).toBe(
      'image_login for lab-bot@ghcr.io reads $GHCR_TOKEN, which is not set where Tender runs',
    );
    expect((error as { opts: object }).opts).toMatchObject({ fatal: true, notTheHost: true });
  });
});
