import { posix } from 'node:path';
import type { NodeRecord } from '../../ledger/node-record';

export const EDITORS = ['code', 'cursor'] as const;
export type Editor = (typeof EDITORS)[number];

/** The URL scheme each editor registers with the system (opened by a browser or the app). */
const SCHEME: Record<Editor, string> = { code: 'vscode', cursor: 'cursor' };

/** `vscode://vscode-remote/ssh-remote+<alias><folder>` (Cursor: `cursor://…`): opens the
 *  folder on the host the user's ssh config names `alias`, through Remote-SSH. */
export function editorUrl(editor: Editor, alias: string, folder: string): string {
  return `${SCHEME[editor]}://vscode-remote/ssh-remote+${alias}${encodeFolder(folder)}`;
}

/** What an editor URL opens: null when it is not one `editorUrl` makes. */
export function parseEditorUrl(
  url: string,
): { editor: Editor; alias: string; folder: string } | null {
  const m = /^(vscode|cursor):\/\/vscode-remote\/ssh-remote\+([A-Za-z0-9._-]+)(\/.*)$/.exec(url);
  if (!m) return null;
  const editor = (Object.keys(SCHEME) as Editor[]).find((e) => SCHEME[e] === m[1])!;
  return { editor, alias: m[2]!, folder: decodeURIComponent(m[3]!) };
}

/** The editor's own command line for the same folder (`code --folder-uri …`). */
export function editorArgs(alias: string, folder: string): string[] {
  return ['--folder-uri', `vscode-remote://ssh-remote+${alias}${encodeFolder(folder)}`];
}

/** The node's workspace as an absolute path on the node: the folder of the agent's socket
 *  when the agent reported it there (`<D>/agent.sock`), its `workspace` beside. Null when
 *  the node has not told (it had not joined, or its socket lives in /tmp). */
export function nodeWorkdir(rec: Pick<NodeRecord, 'agent'>): string | null {
  const socket = rec.agent?.address.socket;
  if (!socket || !socket.startsWith('/') || posix.basename(socket) !== 'agent.sock') return null;
  return posix.join(posix.dirname(socket), 'workspace');
}

function encodeFolder(folder: string): string {
  const abs = folder.startsWith('/') ? folder : `/${folder}`;
  return abs
    .split('/')
    .map((seg) => encodeURIComponent(seg))
    .join('/');
}
