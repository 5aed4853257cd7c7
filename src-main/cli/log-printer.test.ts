import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogRecord } from '../contract';
import { makeLogPrinter } from './log-printer';

const rec = (seq: number, source: LogRecord['source'], line: string): LogRecord => ({
  run: 'r-abc123',
  node: 'r-abc123/node-0',
  channel: 'agent',
  source,
  stream: source === 'gpu' ? 'info' : 'stdout',
  seq,
  ts: 0,
  line,
});

afterEach(() => vi.restoreAllMocks());

describe('makeLogPrinter', () => {
  it.each([false, true])(
    'never prints GPU samples or metrics as output (showBootstrap %s)',
    (showBootstrap) => {
      const out: string[] = [];
      const err: string[] = [];
      vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
      vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
      makeLogPrinter({ prefixNodes: false, showBootstrap })([
        rec(1, 'run', 'epoch 1'),
        rec(2, 'gpu', '{"t":1,"gpus":[{"i":0,"util":87,"memUsed":1,"memTotal":2}]}'),
        rec(3, 'metrics', '{"step":1,"loss":0.5}'),
        rec(4, 'run', 'epoch 2'),
      ]);
      expect(out.join('')).toBe('epoch 1\nepoch 2\n');
      expect(err.join('')).toBe('');
    },
  );
});

describe('makeLogPrinter and terminal escapes', () => {
  it('passes colours, drops a node’s title, clipboard and link escapes (stdout and stderr)', () => {
    const out: string[] = [];
    const err: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => (out.push(String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
    const bootstrap: LogRecord = {
      ...rec(3, 'run', '\x1b]0;pwned\x07booting'),
      channel: 'bootstrap',
      source: 'bootstrap',
    };
    makeLogPrinter({ prefixNodes: false, showBootstrap: true })([
      rec(
        1,
        'run',
        '\x1b[32mok\x1b[0m \x1b]52;c;ZXZpbA==\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\',
      ),
      { ...rec(2, 'run', '\x1b[2A\x1b[2Kfake'), stream: 'stderr' },
      bootstrap,
    ]);
    expect(out.join('')).toBe('\x1b[32mok\x1b[0m link\n');
    expect(err.join('')).toContain('fake\n');
    expect(err.join('')).toContain('booting');
    expect(err.join('')).not.toContain('\x1b[2A');
    expect(err.join('')).not.toContain('\x1b]');
  });
});
