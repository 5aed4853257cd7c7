// A log record of one test node for the Run view's unit tests: line `<channel>-<seq>`
// unless given, timestamped `seq` unless given.
import type { LogChannel, LogRecord } from '../../../src-main/contract';

export const rec = (
  channel: LogChannel,
  seq: number,
  ts = seq,
  line = `${channel}-${seq}`,
): LogRecord => ({
  run: 'r-test0001',
  node: 'r-test0001/node-0',
  channel,
  source: channel === 'agent' ? 'run' : channel === 'events' ? 'event' : 'bootstrap',
  stream: 'stdout',
  seq,
  ts,
  line,
});
