import { describe, expect, it } from 'vitest';
import { commands } from './commands';
import { mcpOrigin, RUN_ORIGIN_MAX, RunOrigin } from './run-origin';

describe('RunOrigin', () => {
  it.each([
    ['cli', 'cli'],
    ['  app  ', 'app'],
    ['mcp:claude-code', 'mcp:claude-code'],
    ['mcp:Cursor Agent', 'mcp:Cursor Agent'],
    ['mcp:Zöë 🤖', 'mcp:Zöë 🤖'],
    ['x'.repeat(RUN_ORIGIN_MAX), 'x'.repeat(RUN_ORIGIN_MAX)],
    [` ${'x'.repeat(RUN_ORIGIN_MAX)} `, 'x'.repeat(RUN_ORIGIN_MAX)],
  ])('takes %j as %j', (given, stored) => {
    expect(RunOrigin.parse(given)).toBe(stored);
  });

  it.each([
    ['', /short name/],
    ['   ', /short name/],
    ['x'.repeat(RUN_ORIGIN_MAX + 1), /at most 80/],
    ['mcp:a\u0007b', /printable/],
    ['mcp:evil\u001b[2Jcli', /printable/],
    ['mcp:a\nb', /printable/],
    ['mcp:a\u0085b', /printable/],
    ['mcp:\u202Eedoc-edualc', /printable/],
    ['mcp:a\u200Bb', /printable/],
  ])('refuses %j', (given, message) => {
    const r = RunOrigin.safeParse(given);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatch(message);
  });

  it('is optional in run.start, run.rerun and run.fromReceipt, and a bad one is refused there', () => {
    const start = commands['run.start'].input;
    const base = { job: { name: 'j', run: 'true' }, pool: { provider: 'local' } };
    expect(start.parse(base).origin).toBeUndefined();
    expect(start.parse({ ...base, origin: ' mcp:claude-code ' }).origin).toBe('mcp:claude-code');
    const bad = start.safeParse({ ...base, origin: 'mcp:\u001b]0;x\u0007' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['origin']);
    expect(commands['run.rerun'].input.parse({ runId: 'r-1', origin: 'cli' }).origin).toBe('cli');
    expect(commands['run.rerun'].input.safeParse({ runId: 'r-1', origin: '' }).success).toBe(false);
    expect(commands['run.fromReceipt'].input.shape.origin.safeParse('a\tb').success).toBe(false);
  });
});

describe('mcpOrigin: any client name becomes an origin RunOrigin takes', () => {
  it.each([
    ['claude-code', 'mcp:claude-code'],
    ['  Cursor  ', 'mcp:Cursor'],
    [undefined, 'mcp'],
    ['', 'mcp'],
    ['\u0000\u001b\u202E', 'mcp'],
    ['evil\u001b[31mred\n', 'mcp:evil[31mred'],
    ['y'.repeat(200), `mcp:${'y'.repeat(RUN_ORIGIN_MAX - 4)}`],
    // Cut at the limit without leaving half of the emoji behind.
    [`${'y'.repeat(RUN_ORIGIN_MAX - 5)}🤖`, `mcp:${'y'.repeat(RUN_ORIGIN_MAX - 5)}`],
  ])('%j → %j', (name, origin) => {
    expect(mcpOrigin(name)).toBe(origin);
    expect(RunOrigin.parse(mcpOrigin(name))).toBe(origin);
  });
});
