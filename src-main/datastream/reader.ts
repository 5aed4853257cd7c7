import { createReadStream, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { LogChannel, LogRecord } from '../contract';
import type { StoredRecord } from './channel-file';
import { channelFile } from './paths';
import { offsetForSeq, offsetOfLastLines } from './seek';

const CHANNELS: LogChannel[] = ['bootstrap', 'agent', 'events'];

/** Reads records with `seq >= fromSeq` from one channel file, in order, up to `limit`. */
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
  const out: LogRecord[] = [];
  const start = tail !== undefined ? offsetOfLastLines(path, tail) : offsetForSeq(path, fromSeq);
  if (tail !== undefined) fromSeq = 1;
  const rl = createInterface({
    input: createReadStream(path, { encoding: 'utf8', start }),
    crlfDelay: Infinity,
  });
  for await (const text of rl) {
    if (!text) continue;
    let r: StoredRecord;
    try {
      r = JSON.parse(text) as StoredRecord;
    } catch {
      break; // a torn last line being written right now; the next read gets it
    }
    if (r.seq < fromSeq) continue;
    out.push({ run, node: `${run}/${logical}`, channel, ...r } as LogRecord);
    if (out.length >= limit) {
      rl.close();
      break;
    }
  }
  return out;
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
