import { describe, expect, it } from 'vitest';
import { PoolSpec } from '../../contract';
import { imageLoginSecret } from './image-login-secret';
import { poolFlags } from './run-pool-flags';

const pool = PoolSpec.parse({
  provider: 'vastai',
  image: 'ghcr.io/lab/train:1',
  image_login: { username: 'lab-bot', password_env: 'GHCR_TOKEN' },
});

describe('imageLoginSecret: where tender run finds the registry password', () => {
  it.each([
    [
      '--secret GHCR_TOKEN (a file, a prompt)',
      { GHCR_TOKEN: 'from-flag' },
      {},
      { GHCR_TOKEN: 'from-flag' },
    ],
    ['the environment: the core reads it itself', {}, { GHCR_TOKEN: 'from-env' }, {}],
  ])('%s', async (_what, given, env, want) => {
    expect(await imageLoginSecret(pool, given, env, undefined)).toEqual(want);
  });

  it('neither, on a terminal: asks, naming the login', async () => {
    const asked: string[] = [];
    const got = await imageLoginSecret(pool, {}, {}, async (q) => (asked.push(q), 'typed'));
    expect(got).toEqual({ GHCR_TOKEN: 'typed' });
    expect(asked).toEqual(['GHCR_TOKEN (password for lab-bot@ghcr.io)']);
  });

  it('neither, and nobody to ask: refused, naming the variable', async () => {
    await expect(imageLoginSecret(pool, {}, {}, undefined)).rejects.toThrow(
      'image_login for lab-bot@ghcr.io reads $GHCR_TOKEN, which is not set, and there is no terminal to ask on',
    );
  });
});

describe('--image-login USER@SERVER over the file’s [pool]', () => {
  const file = PoolSpec.parse({ provider: 'vastai', image: 'ghcr.io/lab/t:1' });
  it.each([
    [
      'lab-bot@ghcr.io',
      file,
      { username: 'lab-bot', server: 'ghcr.io', password_env: 'IMAGE_LOGIN_PASSWORD' },
    ],
    [
      'ci@reg.lab.org:5000',
      file,
      { username: 'ci', server: 'reg.lab.org:5000', password_env: 'IMAGE_LOGIN_PASSWORD' },
    ],
    ['me@x.io', pool, { username: 'me', server: 'x.io', password_env: 'GHCR_TOKEN' }],
  ])('%s', (flag, filePool, want) => {
    expect(poolFlags({ 'image-login': flag })(filePool).image_login).toEqual(want);
  });

  it.each(['lab-bot', '@ghcr.io', 'lab-bot@', 'user:hunter2@ghcr.io'])(
    '%s is refused, naming the form and never a password',
    (flag) => {
      let message = '';
      try {
        poolFlags({ 'image-login': flag });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain('--image-login takes USER@SERVER');
      expect(message).not.toContain('hunter2');
    },
  );
});
