import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { isDataSource, type LogChannel, type LogRecord } from '../contract';
import type { StoredRecord } from './channel-file';
import { channelFile } from './paths';
import { offsetForSeq, offsetOfLastLines } from './seek';

const CHANNELS: LogChannel[] = ['bootstrap', 'agent', 'events'];

/** Bytes read per call: a page of 10 000 short records is one or two reads. */
const CHUNK = 1024 * 1024;

/** Reads records with `seq >= fromSeq` from one channel file, in order, up to `limit`.
 *  Reads whole chunks and splits them itself: a readline stream costs about twice as much
 *  per record, which a 10-million-line `tender logs` pays ten million times. */
export async function readChannel(
  root: string,
  run: string,
  logical: string,
  channel: LogChannel,
  fromSeq: number,
  limit: number,
  tail?: number,
): Promise<LogRecord[]> {
  const path = channelFile(root, run, logical, channel);
  if (!existsSync(path)) return [];
  if (tail !== undefined) return readTail(path, run, logical, channel, tail, limit);
  return readFrom(path, run, logical, channel, offsetForSeq(path, fromSeq), fromSeq, limit);
}

/** GPU samples and metrics ride the agent channel but are no log line: a tail of N is N
 *  lines besides them (with the data among those lines kept, for whoever draws it). */
const isLine = (r: LogRecord) => !isDataSource(r.source);

/** The last `tail` lines of a channel file (see `isLine`), up to `limit` records: reads
 *  twice as far back each time the data records among them left it short. */
async function readTail(
  path: string,
  run: string,
  logical: string,
  channel: LogChannel,
  tail: number,
  limit: number,
): Promise<LogRecord[]> {
  for (let back = tail; ; back *= 2) {
    const start = offsetOfLastLines(path, back);
    const all = await readFrom(path, run, logical, channel, start, 1, Number.MAX_SAFE_INTEGER);
    let lines = 0;
    let from = all.length;
    while (from > 0 && lines < tail) if (isLine(all[--from]!)) lines++;
    if (lines >= tail || start === 0) return all.slice(from).slice(0, limit);
  }
}

async function readFrom(
  path: string,
  run: string,
  logical: string,
  channel: LogChannel,
  start: number,
  fromSeq: number,
  limit: number,
): Promise<LogRecord[]> {
  const node = `${run}/${logical}`;
  const out: LogRecord[] = [];
  const file = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry: Buffer | null = null;
    for (let pos = start; ;) {
      const { bytesRead } = await file.read(buf, 0, CHUNK, pos);
      if (bytesRead === 0) return out; // an unterminated last line is still being written
      pos += bytesRead;
      const data: Buffer = carry
        ? Buffer.concat([carry, buf.subarray(0, bytesRead)])
        : buf.subarray(0, bytesRead);
      let at = 0;
      for (let nl = data.indexOf(10, at); nl !== -1; nl = data.indexOf(10, at)) {
        const text = data.toString('utf8', at, nl);
        at = nl + 1;
        if (!text) continue;
        let r: StoredRecord;
        try {
          r = JSON.parse(text) as StoredRecord;
        } catch {
          return out; // a torn line being written right now; the next read gets it
        }
        if (r.seq < fromSeq) continue;
        out.push({
          run,
          node,
          channel,
          seq: r.seq,
          ts: r.ts,
          source: r.source,
          stream: r.stream,
          line: r.line,
        } as LogRecord);
        if (out.length >= limit) return out;
      }
      // The unfinished line's bytes outlive `buf`, which the next read overwrites.
      carry = at < data.length ? Buffer.from(data.subarray(at)) : null;
    }
  } finally {
    await file.close();
  }
}

/** The logical node names that have any datastream in a run. */
export function nodesWithLogs(root: string, run: string): string[] {
  const dir = join(root, run);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/** Records of several nodes and channels, merged by time (ties by node, channel, seq). */
export async function readMerged(
  root: string,
  run: string,
  opts: {
    logical?: string;
    channel?: LogChannel;
    fromSeq: number;
    limit: number;
    /** The last `tail` records of each channel read (fromSeq is then ignored). */
    tail?: number;
  },
): Promise<LogRecord[]> {
  const nodes = opts.logical ? [opts.logical] : nodesWithLogs(root, run);
  const channels = opts.channel ? [opts.channel] : CHANNELS;
  const all: LogRecord[] = [];
  for (const n of nodes) {
    for (const c of channels)
      all.push(...(await readChannel(root, run, n, c, opts.fromSeq, opts.limit, opts.tail)));
  }
  if (nodes.length * channels.length > 1) {
    all.sort(
      (a, b) =>
        a.ts - b.ts ||
        a.node.localeCompare(b.node) ||
        a.channel.localeCompare(b.channel) ||
        a.seq - b.seq,
    );
  }
  return all.slice(0, opts.limit);
}
