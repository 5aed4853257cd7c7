// The editor links of a node (docs/own-tools.md): one builder for `tender open` and the app.
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
  try {
    return { editor, alias: m[2]!, folder: decodeURIComponent(m[3]!) };
  } catch {
    return null; // a malformed %-escape is not one of ours
  }
}

/** The editor's own command line for the same folder (`code --folder-uri …`). */
export function editorArgs(alias: string, folder: string): string[] {
  return ['--folder-uri', `vscode-remote://ssh-remote+${alias}${encodeFolder(folder)}`];
}

/** `ssh <alias>`: what "Copy ssh command" copies. */
export function sshCommand(alias: string): string {
  return `ssh ${alias}`;
}

function encodeFolder(folder: string): string {
  const abs = folder.startsWith('/') ? folder : `/${folder}`;
  return abs
    .split('/')
    .map((seg) => encodeURIComponent(seg))
    .join('/');
}
