import { join } from 'node:path';
import type { LogChannel } from '../contract';

/** `<home>/datastream/<run>/<logicalNode>/<channel>.jsonl` */
export function channelFile(
  root: string,
  run: string,
  logicalNode: string,
  channel: LogChannel,
): string {
  return join(root, run, logicalNode, `${channel}.jsonl`);
}

/** Node ids are `run/logical`; the datastream folders use the logical part. */
export function logicalOf(nodeId: string): string {
  const i = nodeId.indexOf('/');
  return i === -1 ? nodeId : nodeId.slice(i + 1);
}
