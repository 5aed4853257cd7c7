import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from './csp';

const directives = (csp: string) =>
  new Map(
    csp.split('; ').map((d) => {
      const [name, ...values] = d.split(' ');
      return [name!, values] as const;
    }),
  );

describe('content security policy', () => {
  it('allows only the bundle: no inline script, no eval, no network', () => {
    const csp = directives(
      contentSecurityPolicy({ kind: 'file', indexPath: '/opt/tender/renderer/index.html' }),
    );
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    const all = [...csp.values()].flat();
    expect(all).not.toContain("'unsafe-eval'");
    expect(all.some((v) => /^(https?|wss?):/.test(v))).toBe(false);
  });

  it('in dev allows the Vite preamble and its HMR socket, nothing else remote', () => {
    const csp = directives(
      contentSecurityPolicy({
        kind: 'dev',
        url: 'http://localhost:5173/',
        origin: 'http://localhost:5173',
      }),
    );
    expect(csp.get('script-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(csp.get('connect-src')).toEqual(["'self'", 'ws://localhost:5173']);
  });
});
