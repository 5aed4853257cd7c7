import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../../src-main/contract';
import { byTime, NodeSequencer } from './log-sequencer';
import { rec } from './log-record.test-util';

const seqs = (rs: LogRecord[]) => rs.map((r) => `${r.channel[0]}${r.seq}`);

describe('NodeSequencer', () => {
  it('keeps each (channel, seq) once, each channel counting on its own', () => {
    const s = new NodeSequencer();
    expect(seqs(s.acceptLive([rec('agent', 1), rec('events', 1), rec('agent', 2)]).fresh)).toEqual([
      'a1',
      'e1',
      'a2',
    ]);
    const again = s.acceptLive([rec('agent', 2), rec('agent', 3), rec('events', 1)]);
    expect(seqs(again.fresh)).toEqual(['a3']);
    expect(again.gaps.size).toBe(0);
    expect([s.last('agent'), s.last('events'), s.last('bootstrap')]).toEqual([3, 1, 0]);
  });

  it('orders a batch by seq per channel and reports a hole instead of skipping it', () => {
    const s = new NodeSequencer();
    const r = s.acceptLive([
      rec('agent', 2),
      rec('agent', 1),
      rec('agent', 5),
      rec('agent', 6),
      rec('events', 1),
    ]);
    expect(seqs(r.fresh)).toEqual(['a1', 'a2', 'e1']);
    expect([...r.gaps]).toEqual([['agent', 3]]);
    expect(s.last('agent')).toBe(2);
  });

  it('takes stored records past the cursor, holes and all', () => {
    const s = new NodeSequencer();
    s.acceptLive([rec('agent', 1)]);
    expect(seqs(s.acceptStored([rec('agent', 1), rec('agent', 2), rec('agent', 4)]))).toEqual([
      'a2',
      'a4',
    ]);
    s.skipTo('events', 7);
    expect(s.acceptLive([rec('events', 7)]).fresh).toEqual([]);
    expect(seqs(s.acceptLive([rec('events', 8)]).fresh)).toEqual(['e8']);
  });
});

describe('byTime', () => {
  it('merges channels by time; ties by channel order, then seq', () => {
    const merged = byTime([
      rec('agent', 1, 5),
      rec('events', 1, 5),
      rec('bootstrap', 2, 5),
      rec('bootstrap', 1, 1),
    ]);
    expect(seqs(merged)).toEqual(['b1', 'b2', 'a1', 'e1']);
  });
});
