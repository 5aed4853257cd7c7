import { describe, expect, it } from 'vitest';
import { EMPTY_DRAFT } from '../../store/ui';
import { draftToStartInput } from './draft-to-run';
import { EMPTY_IMAGE_LOGIN, imageLoginOf, imageLoginProblem, registryLine } from './image-login';

const IMAGE = 'ghcr.io/lab/train:1';
const login = (o: Partial<typeof EMPTY_IMAGE_LOGIN>) => ({ ...EMPTY_IMAGE_LOGIN, ...o });

describe('the composer’s registry login', () => {
  it.each([
    ['none', login({}), {}, {}],
    [
      'a typed password: sent as a secret, the pool names it',
      login({ username: 'lab-bot', password: 'tok' }),
      { image_login: { username: 'lab-bot', password_env: 'IMAGE_LOGIN_PASSWORD' } },
      { IMAGE_LOGIN_PASSWORD: 'tok' },
    ],
    [
      'a variable: read where Tender runs, nothing sent',
      login({ username: 'lab-bot', passwordEnv: 'GHCR_TOKEN', server: 'ghcr.io' }),
      { image_login: { username: 'lab-bot', password_env: 'GHCR_TOKEN', server: 'ghcr.io' } },
      {},
    ],
  ])('%s', (_what, l, pool, secrets) => {
    expect(imageLoginOf(IMAGE, l)).toEqual({ pool, secrets });
  });

  it.each([
    [IMAGE, login({}), null],
    [IMAGE, login({ username: 'lab-bot', password: 'x' }), null],
    [IMAGE, login({ password: 'x' }), 'Say who logs in to the registry'],
    [
      '',
      login({ username: 'u', password: 'x' }),
      'A registry login is for an image: give the image too',
    ],
    [
      IMAGE,
      login({ username: 'u' }),
      'Type the registry password, or name the variable Tender reads it from',
    ],
    [
      IMAGE,
      login({ username: 'u', passwordEnv: 'ghcr-token' }),
      '"ghcr-token" is not a variable name (letters, digits and _, e.g. GHCR_TOKEN)',
    ],
  ])('%s %j → %s', (image, l, problem) => {
    expect(imageLoginProblem(image, l)).toBe(problem);
  });

  it('says which registry, by Docker’s rule', () => {
    expect(registryLine(IMAGE, '')).toBe("Logs in to ghcr.io (from the image's name).");
    expect(registryLine('lab/train', '')).toBe("Logs in to docker.io (from the image's name).");
    expect(registryLine(IMAGE, 'mirror.lab.org')).toBe('Logs in to mirror.lab.org.');
  });

  it('run.start carries the login in the pool and a typed password beside it, never in the pool', () => {
    const input = draftToStartInput({
      ...EMPTY_DRAFT,
      name: 'j',
      run: 'true',
      provider: 'runpod',
      image: IMAGE,
      imageLogin: login({ username: 'lab-bot', password: 'tok' }),
    });
    expect(input.pool.image_login).toEqual({
      username: 'lab-bot',
      password_env: 'IMAGE_LOGIN_PASSWORD',
    });
    expect(input.secrets).toEqual({ IMAGE_LOGIN_PASSWORD: 'tok' });
    expect(JSON.stringify(input.pool)).not.toContain('tok');
  });
});
