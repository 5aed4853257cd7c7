import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../contract';
import { LogPrinter } from './log-printer';

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

describe('LogPrinter', () => {
  it('never prints GPU samples or metrics, yet counts them as printed', () => {
    const out = new PassThrough();
    const printer = new LogPrinter(out, false);
    printer.write([
      rec(1, 'run', 'epoch 1'),
      rec(2, 'gpu', '{"t":1,"gpus":[{"i":0,"util":87,"memUsed":1,"memTotal":2}]}'),
    ]);
    expect(printer.lastSeq('r-abc123/node-0', 'agent')).toBe(2);
    printer.write([rec(2, 'gpu', '{}'), rec(3, 'metrics', '{"step":1}'), rec(4, 'run', 'epoch 2')]);
    expect(printer.lastSeq('r-abc123/node-0', 'agent')).toBe(4);
    expect(String(out.read())).toBe('epoch 1\nepoch 2\n');
  });
});

describe('LogPrinter and terminal escapes', () => {
  it('prints colours but no OSC, DCS or cursor movement from a node', () => {
    const out = new PassThrough();
    new LogPrinter(out, false).write([
      rec(1, 'run', '\x1b]2;title\x1b\\\x1b[1mstep\x1b[0m 1\x1bP+q\x1b\\'),
      rec(2, 'run', '\x9b2J\x1b[Hclean'),
    ]);
    expect(String(out.read())).toBe('\x1b[1mstep\x1b[0m 1\nclean\n');
  });
});
