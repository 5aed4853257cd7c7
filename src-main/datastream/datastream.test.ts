// The datastream against real files in a private temp folder. The flush timer is faked so
// that "within the frame" is a fact about the clock, not about how fast the machine is.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isDataSource, type LogRecord } from '../contract';
import { Datastream, type RecordInput } from './datastream';
import { channelFile } from './paths';

const RUN = 'r-ds01';
const N0 = `${RUN}/node-0`;
const N1 = `${RUN}/node-1`;
const FRAME_MS = 16;

const roots: string[] = [];
const streams: Datastream[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});

afterEach(() => {
  for (const s of streams.splice(0)) s.close();
  vi.useRealTimers();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function tempRoot(): string {
  const r = mkdtempSync(join(tmpdir(), 'tender-datastream-'));
  roots.push(r);
  return r;
}

function open(root: string, onBatch?: (records: LogRecord[]) => void): Datastream {
  const ds = new Datastream(root, onBatch);
  streams.push(ds);
  return ds;
}

/** Closes a stream opened by `open` (flushing it), as a process exit would. */
function close(ds: Datastream): void {
  ds.close();
  streams.splice(streams.indexOf(ds), 1);
}

const line = (text: string, ts: number, seq?: number): RecordInput => ({
  source: 'run',
  stream: 'stdout',
  line: text,
  ts,
  ...(seq === undefined ? {} : { seq }),
});

function fileLines(root: string, logical: string, channel: 'bootstrap' | 'agent' | 'events') {
  const text = readFileSync(channelFile(root, RUN, logical, channel), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { seq: number; line: string });
}

describe('sequence numbers', () => {
  it('assigns 1, 2, 3… per node and channel', () => {
    const ds = open(tempRoot());

    ds.append(N0, 'bootstrap', line('a', 1));
    ds.append(N0, 'bootstrap', line('b', 2));
    ds.append(N0, 'events', line('c', 3));
    ds.append(N1, 'bootstrap', line('d', 4));
    ds.append(N0, 'bootstrap', line('e', 5));

    expect(ds.lastSeq(N0, 'bootstrap')).toBe(3);
    expect(ds.lastSeq(N0, 'events')).toBe(1);
    expect(ds.lastSeq(N1, 'bootstrap')).toBe(1);
    expect(ds.lastSeq(N1, 'events')).toBe(0);
  });

  it('keeps the agent’s own seq and drops a duplicate or older one', () => {
    const root = tempRoot();
    const ds = open(root);

    const kept = [5, 6, 9].map((seq) => ds.append(N0, 'agent', line(`s${seq}`, seq, seq)));
    const dropped = [9, 6, 1].map((seq) => ds.append(N0, 'agent', line(`dup${seq}`, seq, seq)));
    ds.flush();

    expect(kept).toEqual([true, true, true]);
    expect(dropped).toEqual([false, false, false]);
    expect(ds.lastSeq(N0, 'agent')).toBe(9);
    expect(fileLines(root, 'node-0', 'agent')).toEqual([
      expect.objectContaining({ seq: 5, line: 's5' }),
      expect.objectContaining({ seq: 6, line: 's6' }),
      expect.objectContaining({ seq: 9, line: 's9' }),
    ]);
  });
});

describe('batching', () => {
  it('flushes within one frame, handing onBatch exactly the flushed records', () => {
    const root = tempRoot();
    const batches: LogRecord[][] = [];
    const ds = open(root, (records) => batches.push(records));

    ds.append(N0, 'bootstrap', line('one', 10));
    ds.append(N1, 'events', { source: 'event', stream: 'info', line: 'two', ts: 11 });
    vi.advanceTimersByTime(FRAME_MS - 1);

    expect(batches).toEqual([]);

    vi.advanceTimersByTime(1);

    expect(batches).toEqual([
      [
        {
          run: RUN,
          node: N0,
          channel: 'bootstrap',
          seq: 1,
          ts: 10,
          source: 'run',
          stream: 'stdout',
          line: 'one',
        },
        {
          run: RUN,
          node: N1,
          channel: 'events',
          seq: 1,
          ts: 11,
          source: 'event',
          stream: 'info',
          line: 'two',
        },
      ],
    ]);
    // In the files before anyone was told.
    expect(fileLines(root, 'node-0', 'bootstrap').map((r) => r.line)).toEqual(['one']);
    expect(fileLines(root, 'node-1', 'events').map((r) => r.line)).toEqual(['two']);

    ds.append(N0, 'bootstrap', line('three', 12));
    vi.advanceTimersByTime(FRAME_MS);

    expect(batches).toHaveLength(2);
    expect(batches[1]!.map((r) => [r.seq, r.line])).toEqual([[2, 'three']]);
  });

  it('does not call onBatch for a frame with nothing new (a dropped duplicate)', () => {
    const batches: LogRecord[][] = [];
    const ds = open(tempRoot(), (records) => batches.push(records));
    ds.append(N0, 'agent', line('x', 1, 1));
    vi.advanceTimersByTime(FRAME_MS);

    expect(ds.append(N0, 'agent', line('x again', 1, 1))).toBe(false);
    vi.advanceTimersByTime(FRAME_MS);

    expect(batches).toHaveLength(1);
  });
});

describe('reopening', () => {
  it('continues each channel’s seq from its file', () => {
    const root = tempRoot();
    const first = open(root);
    for (const t of [1, 2, 3]) first.append(N0, 'bootstrap', line(`l${t}`, t));
    first.append(N0, 'agent', line('a', 4, 40));
    close(first);

    const second = open(root);
    second.append(N0, 'bootstrap', line('l4', 5));

    expect(second.lastSeq(N0, 'bootstrap')).toBe(4);
    expect(second.lastSeq(N0, 'agent')).toBe(40);
    expect(second.append(N0, 'agent', line('old', 6, 40))).toBe(false);
    second.flush();
    expect(fileLines(root, 'node-0', 'bootstrap').map((r) => r.seq)).toEqual([1, 2, 3, 4]);
  });

  it('cuts a torn last line and continues after the last complete record', async () => {
    const root = tempRoot();
    const first = open(root);
    for (const t of [1, 2, 3]) first.append(N0, 'bootstrap', line(`l${t}`, t));
    close(first);
    const path = channelFile(root, RUN, 'node-0', 'bootstrap');
    const whole = readFileSync(path, 'utf8');
    appendFileSync(path, '{"seq":4,"ts":4,"source":"run","str'); // a crash mid-write

    const second = open(root);

    expect(second.lastSeq(N0, 'bootstrap')).toBe(3);
    expect(readFileSync(path, 'utf8')).toBe(whole);
    second.append(N0, 'bootstrap', line('l4', 5));
    const read = await second.read(RUN, {
      nodeId: N0,
      channel: 'bootstrap',
      fromSeq: 1,
      limit: 10,
    });
    expect(read.map((r) => [r.seq, r.line])).toEqual([
      [1, 'l1'],
      [2, 'l2'],
      [3, 'l3'],
      [4, 'l4'],
    ]);
  });

  it('finds the last record behind a torn tail when that record is longer than the probe', () => {
    const root = tempRoot();
    const first = open(root);
    first.append(N0, 'bootstrap', line('short', 1));
    first.append(N0, 'bootstrap', line('x'.repeat(300 * 1024), 2)); // over 256 KiB
    close(first);
    const path = channelFile(root, RUN, 'node-0', 'bootstrap');
    const whole = readFileSync(path, 'utf8');
    appendFileSync(path, '{"seq":3,"ts":3,"li');

    const second = open(root);

    expect(second.lastSeq(N0, 'bootstrap')).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(whole);
  });

  it('cuts a complete but corrupt last line too, instead of refusing to open', () => {
    const root = tempRoot();
    const first = open(root);
    for (const t of [1, 2]) first.append(N0, 'bootstrap', line(`l${t}`, t));
    close(first);
    const path = channelFile(root, RUN, 'node-0', 'bootstrap');
    const whole = readFileSync(path, 'utf8');
    appendFileSync(path, 'garbage that is not json\n');

    const second = open(root);

    expect(second.lastSeq(N0, 'bootstrap')).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(whole);
  });

  it('stores nothing of a batch it cannot write and hands its seqs out again', () => {
    const root = tempRoot();
    const errors: Error[] = [];
    const ds = new Datastream(root, undefined, (e) => errors.push(e));
    streams.push(ds);
    ds.append(N0, 'agent', line('kept', 1, 1));
    ds.flush();
    // The disk fills up: the channel file refuses the next write.
    const path = channelFile(root, RUN, 'node-0', 'agent');
    const broken = ds as unknown as { files: Map<string, { append: () => void }> };
    const file = broken.files.get(`${N0}|agent`)!;
    const realAppend = file.append.bind(file);
    file.append = () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    };
    ds.append(N0, 'agent', line('lost', 2, 2));
    ds.flush();
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/could not store 1 log lines .*ENOSPC/),
    ]);
    expect(ds.lastSeq(N0, 'agent')).toBe(1); // seq 2 is not stored: a resumed stream asks again
    file.append = realAppend;
    expect(ds.append(N0, 'agent', line('again', 3, 2))).toBe(true);
    ds.flush();
    expect(
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { line: string }).line),
    ).toEqual(['kept', 'again']);
  });

  it('treats a file holding only a torn line as empty', () => {
    const root = tempRoot();
    const first = open(root);
    first.append(N0, 'bootstrap', line('l1', 1));
    close(first);
    const path = channelFile(root, RUN, 'node-0', 'bootstrap');
    rmSync(path);
    appendFileSync(path, '{"seq":1,"ts"');

    const second = open(root);
    second.append(N0, 'bootstrap', line('again', 2));
    second.flush();

    expect(fileLines(root, 'node-0', 'bootstrap')).toEqual([
      expect.objectContaining({ seq: 1, line: 'again' }),
    ]);
  });
});

describe('read', () => {
  it('reads one channel from a seq, up to a limit, including records not yet flushed', async () => {
    const ds = open(tempRoot());
    for (let t = 1; t <= 10; t++) ds.append(N0, 'bootstrap', line(`l${t}`, t));

    const page = await ds.read(RUN, { nodeId: N0, channel: 'bootstrap', fromSeq: 4, limit: 3 });
    const tail = await ds.read(RUN, { nodeId: N0, channel: 'bootstrap', fromSeq: 9, limit: 100 });
    const past = await ds.read(RUN, { nodeId: N0, channel: 'bootstrap', fromSeq: 11, limit: 5 });

    expect(page.map((r) => r.seq)).toEqual([4, 5, 6]);
    expect(page[0]).toMatchObject({ run: RUN, node: N0, channel: 'bootstrap', line: 'l4' });
    expect(tail.map((r) => r.seq)).toEqual([9, 10]);
    expect(past).toEqual([]);
  });

  it('pages a long log from any seq, and reads its tail, without scanning from the start', async () => {
    const ds = open(tempRoot());
    for (let i = 1; i <= 40_000; i++)
      ds.append(N0, 'agent', line(`step ${i} ${'.'.repeat(i % 50)}`, i, i));
    const page = await ds.read(RUN, { nodeId: N0, channel: 'agent', fromSeq: 31_234, limit: 3 });
    expect(page.map((r) => r.line.split(' ')[1])).toEqual(['31234', '31235', '31236']);
    const tail = await ds.read(RUN, {
      nodeId: N0,
      channel: 'agent',
      fromSeq: 1,
      limit: 2,
      tail: 5,
    });
    expect(tail.map((r) => r.seq)).toEqual([39_996, 39_997]);
    const all = await ds.read(RUN, { nodeId: N0, channel: 'agent', fromSeq: 1, limit: 100_000 });
    expect(all).toHaveLength(40_000);
  });

  it('counts a tail in log lines: the GPU samples and metrics among them ride along, uncounted', async () => {
    const ds = open(tempRoot());
    let seq = 0;
    for (let i = 1; i <= 20; i++) {
      ds.append(N0, 'agent', line(`job ${i}`, ++seq, seq));
      // A run of samples after each line: far more samples than lines near the end.
      for (let g = 0; g < (i > 15 ? 9 : 1); g++)
        ds.append(N0, 'agent', {
          source: g % 2 ? 'metrics' : 'gpu',
          stream: 'info',
          line: '{"gpus":[]}',
          ts: ++seq,
          seq,
        });
    }
    const tail = await ds.read(RUN, {
      nodeId: N0,
      channel: 'agent',
      fromSeq: 1,
      limit: 1_000,
      tail: 3,
    });
    expect(tail.filter((r) => !isDataSource(r.source)).map((r) => r.line)).toEqual([
      'job 18',
      'job 19',
      'job 20',
    ]);
    expect(tail[0]!.line).toBe('job 18'); // it starts at the third-last line
    const first = await ds.read(RUN, {
      nodeId: N0,
      channel: 'agent',
      fromSeq: 1,
      limit: 1,
      tail: 3,
    });
    expect(first.map((r) => r.line)).toEqual(['job 18']);
    const all = await ds.read(RUN, {
      nodeId: N0,
      channel: 'agent',
      fromSeq: 1,
      limit: 1_000,
      tail: 500,
    });
    expect(all.filter((r) => !isDataSource(r.source))).toHaveLength(20); // fewer lines than asked: all
  });

  it('reads records that straddle its read chunks whole, multi-byte text and a 1.5 MiB line too', async () => {
    const ds = open(tempRoot());
    const texts = Array.from({ length: 3_000 }, (_, i) => `${i + 1} ${'é✓'.repeat(200 + (i % 7))}`);
    texts[1_500] = `big ${'x'.repeat(1_536 * 1024)}`;
    texts.forEach((t, i) => ds.append(N0, 'agent', line(t, i, i + 1)));
    const all = await ds.read(RUN, { nodeId: N0, channel: 'agent', fromSeq: 1, limit: 10_000 });
    expect(all.map((r) => r.line)).toEqual(texts);
    expect(all.map((r) => r.seq)).toEqual(texts.map((_, i) => i + 1));
  });

  it('leaves out a torn last line, which the next read returns once it is whole', async () => {
    const root = tempRoot();
    const ds = open(root);
    ds.append(N0, 'agent', line('whole', 1, 1));
    ds.flush();
    const path = channelFile(root, RUN, 'node-0', 'agent');
    appendFileSync(path, '{"seq":2,"ts":2,"source":"run","stream":"stdout","li');
    const before = await ds.read(RUN, { nodeId: N0, channel: 'agent', fromSeq: 1, limit: 10 });
    appendFileSync(path, 'ne":"late"}\n');
    const after = await ds.read(RUN, { nodeId: N0, channel: 'agent', fromSeq: 1, limit: 10 });
    expect(before.map((r) => r.line)).toEqual(['whole']);
    expect(after.map((r) => r.line)).toEqual(['whole', 'late']);
  });

  it('merges nodes and channels by time, ties by node, channel and seq', async () => {
    const ds = open(tempRoot());
    ds.append(N1, 'agent', line('n1 agent @5', 5, 1));
    ds.append(N0, 'bootstrap', line('n0 boot @3', 3));
    ds.append(N0, 'agent', line('n0 agent @7', 7, 1));
    ds.append(N1, 'bootstrap', line('n1 boot @1', 1));
    ds.append(N0, 'events', line('n0 events @5', 5));
    ds.append(N0, 'bootstrap', line('n0 boot @5', 5));
    ds.append(N1, 'agent', line('n1 agent @9', 9, 2));

    const all = await ds.read(RUN, { fromSeq: 1, limit: 100 });
    const firstFour = await ds.read(RUN, { fromSeq: 1, limit: 4 });
    const node0 = await ds.read(RUN, { nodeId: N0, fromSeq: 1, limit: 100 });
    const agents = await ds.read(RUN, { channel: 'agent', fromSeq: 1, limit: 100 });

    const expected = [
      'n1 boot @1',
      'n0 boot @3',
      'n0 boot @5',
      'n0 events @5',
      'n1 agent @5',
      'n0 agent @7',
      'n1 agent @9',
    ];
    expect(all.map((r) => r.line)).toEqual(expected);
    expect(firstFour.map((r) => r.line)).toEqual(expected.slice(0, 4));
    expect(node0.map((r) => r.line)).toEqual([
      'n0 boot @3',
      'n0 boot @5',
      'n0 events @5',
      'n0 agent @7',
    ]);
    expect(agents.map((r) => [r.node, r.line])).toEqual([
      [N1, 'n1 agent @5'],
      [N0, 'n0 agent @7'],
      [N1, 'n1 agent @9'],
    ]);
  });

  it('returns nothing for a run without logs', async () => {
    const ds = open(tempRoot());

    expect(await ds.read('r-none', { fromSeq: 1, limit: 10 })).toEqual([]);
  });
});
