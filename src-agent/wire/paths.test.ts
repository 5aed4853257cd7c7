import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodePaths, socketPath } from './paths';

describe('socketPath', () => {
  it('uses D/agent.sock when that is short enough', () => {
    expect(socketPath('/home/u/.tender/nodes/n1')).toBe('/home/u/.tender/nodes/n1/agent.sock');
  });

  it('moves to a hashed name in tmpdir at 100 bytes and more', () => {
    const dir = `/d/${'x'.repeat(100 - '/d/'.length - '/agent.sock'.length)}`;
    expect(Buffer.byteLength(`${dir}/agent.sock`)).toBe(100);
    const hash = createHash('sha256').update(dir).digest('hex').slice(0, 16);
    expect(socketPath(dir, '/tmp')).toBe(`/tmp/tender-agent-${hash}.sock`);
    expect(socketPath(`${dir.slice(0, -1)}`, '/tmp')).toBe(`${dir.slice(0, -1)}/agent.sock`);
  });

  it('hashes the absolute path, so a trailing slash or relative spelling agrees', () => {
    const long = `/srv/${'n'.repeat(120)}`;
    expect(socketPath(`${long}/`, '/tmp')).toBe(socketPath(long, '/tmp'));
    expect(nodePaths(`${long}/`).socket).toBe(socketPath(long));
  });
});
