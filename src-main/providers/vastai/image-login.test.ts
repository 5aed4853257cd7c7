import { describe, expect, it } from 'vitest';
import { vastLoginString } from './image-login';

describe('vastLoginString: the docker login arguments Vast.ai takes as image_login', () => {
  it.each([
    [
      { username: 'lab-bot', password: 'ghp_abc123', server: 'ghcr.io' },
      '-u lab-bot -p ghp_abc123 ghcr.io',
    ],
    [
      { username: 'me', password: 'dckr_pat_x', server: 'docker.io' },
      '-u me -p dckr_pat_x docker.io',
    ],
    [
      { username: 'AWS', password: 'eyJ==', server: '1234.dkr.ecr.eu-west-1.amazonaws.com' },
      '-u AWS -p eyJ== 1234.dkr.ecr.eu-west-1.amazonaws.com',
    ],
    [
      { username: 'ci', password: 'p@ss:w0rd', server: 'localhost:5000' },
      '-u ci -p p@ss:w0rd localhost:5000',
    ],
  ])('%j → %s', (login, expected) => {
    expect(vastLoginString(login)).toBe(expected);
  });

  it.each([
    [{ username: 'lab bot', password: 'x', server: 'ghcr.io' }, 'username holds whitespace'],
    [
      { username: 'lab-bot', password: 'two words', server: 'ghcr.io' },
      'password holds whitespace',
    ],
    [{ username: 'lab-bot', password: '', server: 'ghcr.io' }, 'password is empty'],
  ])('refuses %j, naming the part and never the value', (login, said) => {
    let message = '';
    try {
      vastLoginString(login);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(said);
    expect(message).not.toContain('two words');
  });
});
