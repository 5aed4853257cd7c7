import { describe, expect, it } from 'vitest';
import { nodeWorkdir } from './editor-url';

describe('node workdir', () => {
  it.each<[string | undefined, string | null]>([
    ['/home/u/.tender/nodes/L/agent.sock', '/home/u/.tender/nodes/L/workspace'],
    ['/tmp/tender-agent-0123456789abcdef.sock', null],
    [undefined, null],
    ['relative/agent.sock', null],
  ])('workdir from the socket %s', (socket, dir) => {
    const agent =
      socket === undefined
        ? null
        : ({ address: { runtime: 'node', bundleWord: 'b', dirWord: 'd', socket } } as never);
    expect(nodeWorkdir({ agent })).toBe(dir);
  });
});
