import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../src-main/contract';
import { formatRecords, plainText, type FormatState } from './log-format';

const r = (patch: Partial<LogRecord>): LogRecord => ({
  run: 'r-test0001',
  node: 'r-test0001/node-0',
  channel: 'agent',
  source: 'run',
  stream: 'stdout',
  seq: 1,
  ts: 0,
  line: '',
  ...patch,
});

describe('formatRecords', () => {
  it('never writes GPU samples, and they start no section', () => {
    const state: FormatState = { phase: 'run' };
    const out = formatRecords(
      [
        r({ source: 'run', line: 'step 1' }),
        r({ source: 'gpu', stream: 'info', line: '{"t":1,"gpus":[]}' }),
        r({ source: 'run', line: 'step 2' }),
      ],
      state,
    );
    expect(out).toEqual({ text: 'step 1\r\nstep 2\r\n', lines: 2 });
    expect(formatRecords([r({ source: 'gpu', line: '{}' })], state)).toEqual({
      text: '',
      lines: 0,
    });
  });

  it('passes job output through byte for byte and marks each phase once', () => {
    const state: FormatState = { phase: null };
    const a = formatRecords(
      [
        r({ channel: 'bootstrap', source: 'bootstrap', stream: 'info', line: 'machine: Linux' }),
        r({ source: 'agent', stream: 'info', line: 'setup started' }),
        r({ source: 'setup', line: 'setting up' }),
        r({ source: 'run', line: '\x1b[32mstep 1\x1b[0m' }),
        r({ source: 'run', stream: 'stderr', line: '\r[##..] 50%' }),
      ],
      state,
    );
    const lines = a.text.split('\r\n').slice(0, -1);
    expect(a.lines).toBe(lines.length);
    expect(plainText(lines[0]!)).toMatch(/^── bootstrap ─+ \d\d:\d\d:\d\d$/);
    expect(lines[1]).toBe('\x1b[0m\x1b[2m│ machine: Linux\x1b[0m');
    expect(plainText(lines[2]!)).toBe('» setup started');
    expect(plainText(lines[3]!)).toMatch(/^── setup /);
    expect(lines[4]).toBe('setting up');
    expect(plainText(lines[5]!)).toMatch(/^── run /);
    expect(lines[6]).toBe('\x1b[32mstep 1\x1b[0m');
    expect(lines[7]).toBe('\r[##..] 50%');
    expect(state.phase).toBe('run');
    // The state carries over: more run output gets no second divider.
    expect(formatRecords([r({ line: 'step 2' })], state)).toEqual({ text: 'step 2\r\n', lines: 1 });
  });

  it('gives host setup and run_setup their own sections, headers dimmed, output as is', () => {
    const { text } = formatRecords(
      [
        r({
          source: 'host_setup',
          stream: 'info',
          line: 'host_setup[1] apt-get install -y ffmpeg',
        }),
        r({ source: 'host_setup', line: 'Setting up ffmpeg' }),
        r({ source: 'run_setup', stream: 'info', line: 'run_setup: source env.sh' }),
        r({ source: 'run_setup', line: 'env ready' }),
        r({ source: 'run', line: 'epoch 1' }),
      ],
      { phase: null },
    );
    const lines = text.split('\r\n').slice(0, -1).map(plainText);
    expect(lines).toEqual([
      expect.stringMatching(/^── host_setup ─+ /),
      '» host_setup[1] apt-get install -y ffmpeg',
      'Setting up ffmpeg',
      expect.stringMatching(/^── run_setup ─+ /),
      '» run_setup: source env.sh',
      'env ready',
      expect.stringMatching(/^── run ─+ /),
      'epoch 1',
    ]);
  });

  it('shows failure events in red', () => {
    const { text } = formatRecords(
      [r({ channel: 'events', source: 'event', line: 'job failed: exit 3' })],
      {
        phase: null,
      },
    );
    expect(text).toContain('\x1b[31m» job failed: exit 3');
  });
});

describe('plainText', () => {
  it('strips colours, OSC titles and controls', () => {
    expect(plainText('\x1b[1;32mok\x1b[0m \x1b]0;title\x07done\r')).toBe('ok done');
  });
});
