import { describe, expect, it } from 'vitest';
import { parsePythonVersion, probeRuntimes } from './capabilities';

describe('runtime probes', () => {
  it.each([
    ['Python 3.12.1\n', '3.12.1'],
    ['Python 3.11', '3.11'],
    ['Python 2.7.18', '2.7.18'],
    ['python: command not found', null],
    ['', null],
  ])('%j → %j', (text, want) => expect(parsePythonVersion(text)).toBe(want));

  it('reads the python on this machine as the agent would', async () => {
    const caps = await probeRuntimes();
    // This machine has python3 (the tests' sshd wrapper runs on it).
    expect(caps['python.version']).toMatch(/^3\.\d+/);
  });
});
