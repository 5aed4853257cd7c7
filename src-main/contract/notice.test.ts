import { describe, expect, it } from 'vitest';
import { noticeFor, noticeKey, webhookUrlProblem, type NoticeEvent } from './notice';

const run = { runId: 'r-abc123', jobName: 'train', costUsd: 1.234 };

describe('noticeFor: what Tender says for each event', () => {
  it.each<[string, NoticeEvent, string, string]>([
    [
      'a completed run',
      { kind: 'run.ended', ...run, status: 'completed', reason: null },
      'train completed',
      'Run r-abc123 completed · $1.23',
    ],
    [
      'a completed run does not repeat a note as a reason',
      { kind: 'run.ended', ...run, status: 'completed', reason: 'outputs collected' },
      'train completed',
      'Run r-abc123 completed · $1.23',
    ],
    [
      'a failed run, with why',
      { kind: 'run.ended', ...run, status: 'failed', reason: 'node-0: run exited 3' },
      'train failed',
      'Run r-abc123 failed: node-0: run exited 3 · $1.23',
    ],
    [
      'a failed run with no reason',
      { kind: 'run.ended', ...run, status: 'failed', reason: null },
      'train failed',
      'Run r-abc123 failed · $1.23',
    ],
    [
      'a cancelled run',
      { kind: 'run.ended', ...run, status: 'cancelled', reason: 'cancelled' },
      'train cancelled',
      'Run r-abc123 cancelled · $1.23',
    ],
    [
      'a budget warning',
      { kind: 'budget.warning', ...run, costUsd: 8.1, budgetUsd: 10 },
      'train: 81% of its budget',
      'Run r-abc123 has spent $8.10 of $10.00; it stops at the budget',
    ],
    [
      'a recovery',
      { kind: 'run.recovered', ...run, attempt: 2, reason: 'instance exited' },
      'train recovered',
      'Run r-abc123 lost its node: instance exited; attempt 2 is starting · $1.23',
    ],
    [
      'GPUs left idle (the GPU idle rule notifies)',
      {
        kind: 'gpu.idle',
        ...run,
        nodeName: 'node-0',
        at: 1_700_000_000_000,
        reason: 'GPU idle rule: every GPU under 10% for 30m while the job ran',
      },
      'train: GPUs idle',
      'Run r-abc123, node-0: GPU idle rule: every GPU under 10% for 30m while the job ran; the job goes on · $1.23',
    ],
    [
      'an outbid lease',
      { kind: 'lease.interrupted', ...run, leaseId: 'vastai:42', reason: null },
      'train: outbid',
      'Lease vastai:42 of run r-abc123 was outbid and stopped · $1.23',
    ],
  ])('%s', (_, event, title, body) => {
    expect(noticeFor(event)).toEqual({ key: noticeKey(event), title, body, event });
  });

  it('cuts a long reason to one short line', () => {
    const reason = `line one\n${'x'.repeat(1000)}`;
    const n = noticeFor({ kind: 'run.ended', ...run, status: 'failed', reason });
    expect(n.body).not.toContain('\n');
    expect(n.body.length).toBeLessThan(300);
    expect(n.body).toContain('line one x');
    expect(n.body).toContain('…');
  });
});

describe('noticeKey: one event is told once', () => {
  it.each<[NoticeEvent, string]>([
    [{ kind: 'run.ended', ...run, status: 'failed', reason: 'a' }, 'run.ended:r-abc123:failed'],
    [
      { kind: 'run.ended', ...run, status: 'completed', reason: null },
      'run.ended:r-abc123:completed',
    ],
    [{ kind: 'budget.warning', ...run, budgetUsd: 2 }, 'budget.warning:r-abc123:running'],
    [
      { kind: 'run.recovered', ...run, attempt: 3, reason: null },
      'run.recovered:r-abc123:attempt-3',
    ],
    [
      { kind: 'lease.interrupted', ...run, leaseId: 'vastai:9', reason: null },
      'lease.interrupted:r-abc123:vastai:9',
    ],
  ])('%j → %s', (event, key) => {
    expect(noticeKey(event)).toBe(key);
  });

  it('is the same whatever the reason or cost says (a later view of the same end)', () => {
    const a = noticeKey({ kind: 'run.ended', ...run, status: 'failed', reason: 'x' });
    const b = noticeKey({ ...run, kind: 'run.ended', status: 'failed', reason: 'y', costUsd: 9 });
    expect(a).toBe(b);
  });
});

describe('webhookUrlProblem: https, or plain http to this machine only', () => {
  it.each([
    ['https://hooks.slack.com/services/T0/B0/XYZ', null],
    ['https://example.com:8443/hook?x=1', null],
    ['http://localhost:8080/hook', null],
    ['http://127.0.0.1:9/hook', null],
    ['http://[::1]:9/hook', null],
    ['http://example.com/hook', 'https only (plain http only to localhost or 127.0.0.1)'],
    ['http://127.0.0.2/hook', 'https only (plain http only to localhost or 127.0.0.1)'],
    ['ftp://example.com/hook', 'an https:// URL, please'],
    ['hooks.slack.com/services/x', 'not a URL: it starts with https://'],
    ['', 'not a URL: it starts with https://'],
    ['https://user:pw@example.com/hook', 'no user:password in the URL; put the token in the path'],
  ])('%s', (url, problem) => {
    expect(webhookUrlProblem(url)).toBe(problem);
  });
});
