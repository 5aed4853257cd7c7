import { describe, expect, it } from 'vitest';
import { createRedactor } from './redact';

describe('createRedactor', () => {
  it('replaces every occurrence of each secret of 6+ characters', () => {
    const redact = createRedactor(['hunter22', 'abc', 'sk-live-XYZ']);
    expect(redact('pw=hunter22 again hunter22; key sk-live-XYZ, abc stays')).toBe(
      'pw=*** again ***; key ***, abc stays',
    );
  });

  it('replaces a secret that contains another as a whole', () => {
    expect(createRedactor(['secret', 'secret-token'])('x secret-token y secret')).toBe(
      'x *** y ***',
    );
  });

  it('redacts each line of a multi-line secret', () => {
    const pem = '-----BEGIN KEY-----\nMIIEvQIBADANBgkq\n-----END KEY-----';
    expect(createRedactor([pem])('MIIEvQIBADANBgkq')).toBe('***');
  });

  it('leaves no piece of two secrets that overlap', () => {
    const redact = createRedactor(['alpha-bravo-charlie', 'charlie-delta-echo']);
    expect(redact('x alpha-bravo-charlie-delta-echo y')).toBe('x *** y');
  });

  it('leaves lines alone when there are no secrets', () => {
    expect(createRedactor([])('nothing here')).toBe('nothing here');
  });
});
