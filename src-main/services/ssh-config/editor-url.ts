import { posix } from 'node:path';
import type { NodeRecord } from '../../ledger/node-record';

// The pure builder lives in the contract, so the app builds the same URL as `tender open`.
export {
  EDITORS,
  editorArgs,
  editorUrl,
  parseEditorUrl,
  type Editor,
} from '../../contract/editor-url';

/** The node's workspace as an absolute path on the node: the folder of the agent's socket
 *  when the agent reported it there (`<D>/agent.sock`), its `workspace` beside. Null when
 *  the node has not told (it had not joined, or its socket lives in /tmp). */
export function nodeWorkdir(rec: Pick<NodeRecord, 'agent'>): string | null {
  const socket = rec.agent?.address.socket;
  if (!socket || !socket.startsWith('/') || posix.basename(socket) !== 'agent.sock') return null;
  return posix.join(posix.dirname(socket), 'workspace');
}
