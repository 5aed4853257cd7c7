import { describe, expect, it } from 'vitest';
import { TenderError } from '../../base/tender-error';
import { parseSlurmDuration, parseSqueue, SQUEUE_FORMAT, squeueCommand, slurmTime } from './squeue';

/** Captured outputs are written with ␟ (U+241F) where squeue printed the unit separator. */
const us = (text: string) => text.replaceAll('␟', '\x1f');

describe('squeueCommand', () => {
  it('has no header and one fixed format, the separator raw inside single quotes', () => {
    expect(SQUEUE_FORMAT).toBe(us('%i␟%j␟%T␟%r␟%N␟%L␟%S'));
    expect(squeueCommand()).toBe(`squeue -h -o '${SQUEUE_FORMAT}'`);
  });

  it.each<[Parameters<typeof squeueCommand>[0], string]>([
    [{ user: true }, ' --me'],
    [{ names: ['tender-a', 'tender-b'] }, " --name='tender-a,tender-b'"],
    [{ jobIds: ['12', '13_4', '14+1'] }, " --jobs='12,13_4,14+1'"],
    [{ allStates: true }, ' --states=all'],
    [{ start: true }, ' --start'],
    [
      { user: true, names: ["it's"], jobIds: ['1'], allStates: true, start: true },
      ` --me --name='it'\\''s' --jobs='1' --states=all --start`,
    ],
  ])('%j', (q, tail) => {
    expect(squeueCommand(q)).toBe(`squeue -h -o '${SQUEUE_FORMAT}'${tail}`);
  });

  it.each<Parameters<typeof squeueCommand>[0]>([
    { names: [] },
    { names: ['a,b'] },
    { jobIds: [] },
    { jobIds: ['12;reboot'] },
  ])('refuses %j', (q) => {
    expect(() => squeueCommand(q)).toThrow(TenderError);
  });
});

describe('parseSqueue', () => {
  // Captured on the test cluster (two nodes, vm and vm-2): a job waiting for all CPUs with
  // and without a time limit, one running on one node, one on both.
  const LIVE = us(
    [
      '3␟all-cpus␟PENDING␟Resources␟␟UNLIMITED␟N/A',
      '4␟all-cpus-t␟PENDING␟Resources␟␟5:00␟N/A',
      '1␟run-a␟RUNNING␟None␟vm␟9:58␟2026-12-01T18:57:07',
      '2␟run-ab␟RUNNING␟None␟vm,vm-2␟9:58␟2026-12-01T18:57:07',
      '',
    ].join('\n'),
  );

  it('reads every row', () => {
    expect(parseSqueue(LIVE)).toEqual([
      {
        jobId: '3',
        name: 'all-cpus',
        state: 'PENDING',
        reason: 'Resources',
        nodes: '',
        timeLeft: 'UNLIMITED',
        timeLeftS: null,
        startTime: null,
      },
      {
        jobId: '4',
        name: 'all-cpus-t',
        state: 'PENDING',
        reason: 'Resources',
        nodes: '',
        timeLeft: '5:00',
        timeLeftS: 300,
        startTime: null,
      },
      {
        jobId: '1',
        name: 'run-a',
        state: 'RUNNING',
        reason: 'None',
        nodes: 'vm',
        timeLeft: '9:58',
        timeLeftS: 598,
        startTime: '2026-12-01T18:57:07',
      },
      {
        jobId: '2',
        name: 'run-ab',
        state: 'RUNNING',
        reason: 'None',
        nodes: 'vm,vm-2',
        timeLeft: '9:58',
        timeLeftS: 598,
        startTime: '2026-12-01T18:57:07',
      },
    ]);
  });

  // Also captured: ended jobs (--states=all), a requeued one, a reason with blanks and
  // punctuation, a job name with `|` in it.
  it.each<[string, Record<string, unknown>]>([
    [
      '8␟down-norequeue␟NODE_FAIL␟NodeDown␟vm␟UNLIMITED␟2026-12-01T18:57:13',
      { state: 'NODE_FAIL', reason: 'NodeDown', nodes: 'vm' },
    ],
    [
      '7␟down-requeue␟PENDING␟BeginTime␟␟UNLIMITED␟2026-12-01T18:59:15',
      { state: 'PENDING', reason: 'BeginTime', startTime: '2026-12-01T18:59:15' },
    ],
    [
      '9␟tl␟TIMEOUT␟TimeLimit␟vm␟INVALID␟2026-12-01T18:57:17',
      { state: 'TIMEOUT', timeLeftS: null },
    ],
    ['1␟victim␟PREEMPTED␟None␟vm␟UNLIMITED␟2026-12-01T18:58:55', { state: 'PREEMPTED' }],
    [
      '5␟wrap␟FAILED␟NonZeroExitCode␟vm␟UNLIMITED␟2026-12-01T18:57:10',
      { state: 'FAILED', reason: 'NonZeroExitCode' },
    ],
    ['6␟wrap␟COMPLETED␟None␟vm␟UNLIMITED␟2026-12-01T18:57:10', { state: 'COMPLETED' }],
    ['3␟all-cpus␟CANCELLED␟Resources␟␟UNLIMITED␟2026-12-01T18:57:09', { state: 'CANCELLED' }],
    [
      "17␟wrap␟PENDING␟Job's account not known, so it can't use this partition (gpu allows gputeam)␟␟UNLIMITED␟N/A",
      { reason: "Job's account not known, so it can't use this partition (gpu allows gputeam)" },
    ],
    ['6␟we|ird name␟RUNNING␟None␟vm␟UNLIMITED␟2026-12-01T18:56:42', { name: 'we|ird name' }],
  ])('%s', (line, expected) => {
    const rows = parseSqueue(`${us(line)}\n`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject(expected);
  });

  it("passes over a login shell's noise and blank lines", () => {
    const noisy = `Welcome!\nlast login: yesterday\n\n${LIVE}\r\n`;
    expect(parseSqueue(noisy).map((r) => r.jobId)).toEqual(['3', '4', '1', '2']);
    expect(parseSqueue('')).toEqual([]);
  });
});

describe('parseSlurmDuration', () => {
  it.each<[string, number | null]>([
    ['0:59', 59],
    ['9:58', 598],
    ['5:00', 300],
    ['1:00:00', 3600],
    ['1-02:03:04', 93784],
    ['365-00:00:00', 31536000],
    ['UNLIMITED', null],
    ['NOT_SET', null],
    ['INVALID', null],
    ['', null],
  ])('%s', (text, seconds) => {
    expect(parseSlurmDuration(text)).toBe(seconds);
  });
});

describe('slurmTime', () => {
  it.each<[string, string | null]>([
    ['2026-12-01T18:57:07', '2026-12-01T18:57:07'],
    ['N/A', null],
    ['Unknown', null],
    ['None', null],
  ])('%s', (text, expected) => {
    expect(slurmTime(text)).toBe(expected);
  });
});
