import { describe, expect, it } from 'vitest';
import type { ForwardView } from '../../../src-main/contract';
import { forwardLabel, forwardUrl } from '../../../src-main/contract/forward';
import { forwardHref, forwardKey, forwardText, shortToken, sortForwards } from './forward-text';

const local = (remotePort: number, localPort: number, over: Partial<ForwardView> = {}) =>
  ({
    runId: 'r-abc123',
    nodeId: 'r-abc123/node-0',
    direction: 'local',
    remotePort,
    localPort,
    host: '127.0.0.1',
    url: forwardUrl(localPort),
    label: forwardLabel(remotePort),
    token: null,
    ...over,
  }) satisfies ForwardView;

const reverse = (remotePort: number, host: string, localPort: number, nodeId?: string) =>
  local(remotePort, localPort, {
    direction: 'remote',
    host,
    url: null,
    label: forwardLabel(remotePort),
    ...(nodeId ? { nodeId } : {}),
  });

describe('forwardText', () => {
  it('a local forward: its label, then where it listens here', () => {
    expect(forwardText(local(6006, 16006))).toBe('TensorBoard — localhost:16006');
    expect(forwardText(local(8888, 8888))).toBe('Jupyter — localhost:8888');
    expect(forwardText(local(5173, 40123))).toBe('port 5173 — localhost:40123');
  });
  it('a reverse forward: the node port, then what it reaches from here', () => {
    expect(forwardText(reverse(5000, 'localhost', 5000))).toBe('node:5000 → localhost:5000');
    expect(forwardText(reverse(5000, 'db.lan', 5432))).toBe('node:5000 → db.lan:5432');
  });
});

describe('forwardHref', () => {
  it('the URL; with the token appended when the job printed one', () => {
    expect(forwardHref(local(6006, 16006))).toBe('http://127.0.0.1:16006');
    expect(forwardHref(local(8888, 18888, { token: '3fa1b2c3d4e5f60718293a4b' }))).toBe(
      'http://127.0.0.1:18888/?token=3fa1b2c3d4e5f60718293a4b',
    );
    expect(forwardHref(reverse(5000, 'localhost', 5000))).toBeNull();
  });
  it('a token replaces one already on the URL', () => {
    expect(forwardHref({ url: 'http://127.0.0.1:1/lab?token=old', token: 'abc' })).toBe(
      'http://127.0.0.1:1/lab?token=abc',
    );
  });
});

describe('shortToken', () => {
  it('shows the start of a long token', () => {
    expect(shortToken('3fa1b2c3d4e5f60718293a4b')).toBe('3fa1b2c3…');
    expect(shortToken('abc')).toBe('abc');
  });
});

describe('sortForwards', () => {
  it('by node in rank order, local before reverse, then by node port', () => {
    const n = (i: number) => `r-abc123/node-${i}`;
    const list = [
      reverse(5000, 'localhost', 5000, n(0)),
      local(8888, 8888, { nodeId: n(10) }),
      local(8888, 18888),
      local(6006, 6006, { nodeId: n(2) }),
      local(6006, 16006),
    ];
    expect(sortForwards(list).map(forwardKey)).toEqual([
      'r-abc123/node-0/local/6006',
      'r-abc123/node-0/local/8888',
      'r-abc123/node-0/remote/5000',
      'r-abc123/node-2/local/6006',
      'r-abc123/node-10/local/8888',
    ]);
  });
});
