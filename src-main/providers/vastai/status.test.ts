import { describe, expect, test } from 'vitest';
import { classifyInstance, hasBootError, isGoneInstance, STATUS_TABLE } from './status';

const OCI =
  'Error response from daemon: failed to create task for container: failed to create shim ' +
  'task: OCI runtime create failed: runc create failed: unable to start container process';
const MESSAGES = {
  none: null,
  ok: 'success, running pytorch/pytorch_2.5.1-cuda12.4-cudnn9-runtime/ssh',
  pulling: 'Pulling image pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime',
  error: OCI,
} as const;
type Msg = keyof typeof MESSAGES;
type Kind = 'starting' | 'running' | 'failed';

/** Every status × every kind of status message. `stopped` twice: Vast.ai still means to run
 *  it (starting) or not (failed). Unknown statuses wait; the orchestrator's deadline ends it. */
const EXPECTED: [status: string | null, intended: string, Record<Msg, Kind>][] = [
  [null, 'running', { none: 'starting', ok: 'starting', pulling: 'starting', error: 'failed' }],
  [
    'created',
    'running',
    { none: 'starting', ok: 'starting', pulling: 'starting', error: 'failed' },
  ],
  [
    'loading',
    'running',
    { none: 'starting', ok: 'starting', pulling: 'starting', error: 'failed' },
  ],
  [
    'rebooting',
    'running',
    { none: 'starting', ok: 'starting', pulling: 'starting', error: 'failed' },
  ],
  ['running', 'running', { none: 'running', ok: 'running', pulling: 'running', error: 'running' }],
  [
    'stopped',
    'running',
    { none: 'starting', ok: 'starting', pulling: 'starting', error: 'failed' },
  ],
  ['stopped', 'stopped', { none: 'failed', ok: 'failed', pulling: 'failed', error: 'failed' }],
  ['frozen', 'frozen', { none: 'failed', ok: 'failed', pulling: 'failed', error: 'failed' }],
  ['exited', 'running', { none: 'failed', ok: 'failed', pulling: 'failed', error: 'failed' }],
  ['unknown', 'running', { none: 'failed', ok: 'failed', pulling: 'failed', error: 'failed' }],
  ['offline', 'running', { none: 'failed', ok: 'failed', pulling: 'failed', error: 'failed' }],
  [
    'scheduling',
    'running',
    { none: 'starting', ok: 'starting', pulling: 'starting', error: 'starting' },
  ],
];

describe('classifyInstance: the status table', () => {
  const cases = EXPECTED.flatMap(([status, intended, byMsg]) =>
    (Object.keys(byMsg) as Msg[]).map((msg) => [status, intended, msg, byMsg[msg]] as const),
  );

  test.each(cases)('%j (intended %s) with a %s message → %s', (status, intended, msg, kind) => {
    const state = classifyInstance({
      id: 7,
      actual_status: status,
      intended_status: intended,
      cur_state: 'running',
      next_state: 'running',
      status_msg: MESSAGES[msg],
    });

    expect(state.kind).toBe(kind);
    if (state.kind === 'failed' && MESSAGES[msg]) expect(state.reason).toContain(MESSAGES[msg]);
  });

  test('the table and this test cover the same statuses', () => {
    const tested = new Set(EXPECTED.map(([s]) => s ?? '(none)'));
    for (const status of Object.keys(STATUS_TABLE)) expect(tested).toContain(status);
  });

  test('a failed instance says why, with Vast.ai’s message', () => {
    const state = classifyInstance({ actual_status: 'created', status_msg: OCI });

    expect(state).toEqual({
      kind: 'failed',
      reason: `the instance is created but its container failed: ${OCI}`,
    });
  });

  test('a long multi-line Docker error becomes one line, cut', () => {
    const state = classifyInstance({
      actual_status: 'exited',
      status_msg: `${OCI}\n${'x'.repeat(500)}`,
    });

    expect(state.kind === 'failed' && state.reason).toMatch(
      /^the instance is exited: .*OCI runtime/,
    );
    expect(state.kind === 'failed' && state.reason).not.toContain('\n');
    expect(state.kind === 'failed' && state.reason.endsWith('…')).toBe(true);
  });

  test.each([
    ['absent status', {}],
    ['empty status', { actual_status: '' }],
    ['status in capitals', { actual_status: 'LOADING' }],
  ])('%s is read as starting', (_n, inst) => {
    expect(classifyInstance(inst).kind).toBe('starting');
  });

  test.each([
    [
      'loading, with its pull in status_msg',
      { actual_status: 'loading', status_msg: 'Downloading 1GB/9GB' },
      true,
    ],
    ['loading, nothing said', { actual_status: 'loading' }, true],
    ['not provisioned yet', {}, false],
    ['created', { actual_status: 'created' }, false],
    ['rebooting', { actual_status: 'rebooting' }, false],
  ])('%s: an image pull is %s', (_n, inst, isImagePull) => {
    const state = classifyInstance(inst);
    expect(state.kind === 'starting' && state.isImagePull).toBe(isImagePull);
  });
});

describe('gone', () => {
  test.each([
    ['no instance', null, true, 'gone'],
    ['allocation released', { actual_status: 'exited', cur_state: 'unloaded' }, true, 'gone'],
    [
      'being destroyed',
      { actual_status: 'running', cur_state: 'running', next_state: 'unloaded' },
      false,
      'failed',
    ],
    [
      'stopped still bills storage',
      { actual_status: 'stopped', cur_state: 'stopped' },
      false,
      'failed',
    ],
    ['running', { actual_status: 'running', cur_state: 'running' }, false, 'running'],
  ])('%s', (_n, inst, gone, kind) => {
    expect(isGoneInstance(inst)).toBe(gone);
    expect(classifyInstance(inst).kind).toBe(kind);
  });
});

describe('hasBootError', () => {
  test.each([
    [OCI, true],
    ['Error: manifest for pytorch/pytorch:nope not found', true],
    ['pull access denied for private/image, repository does not exist', true],
    ['docker: invalid reference format', true],
    ['failed to register layer: no space left on device', true],
    ['Error response from daemon: Conflict', true],
    ['success, running pytorch/pytorch_latest/ssh', false],
    ['Pulling image pytorch/pytorch:latest', false],
    ['Loading: 45% of 3.2 GB', false],
    ['', false],
    [null, false],
    [42, false],
  ])('%j → %s', (msg, expected) => {
    expect(hasBootError(msg)).toBe(expected);
  });
});
