import { describe, expect, it } from 'vitest';
import { editorArgs, editorUrl, parseEditorUrl, sshCommand, type Editor } from './editor-url';

describe('editor URLs', () => {
  it.each<[Editor, string, string, string]>([
    [
      'code',
      'tender-r-k3x9a2mf-node-0',
      '/root/.tender/nodes/tender-ab-r-k3x9a2mf-node-0/workspace',
      'vscode://vscode-remote/ssh-remote+tender-r-k3x9a2mf-node-0/root/.tender/nodes/tender-ab-r-k3x9a2mf-node-0/workspace',
    ],
    [
      'cursor',
      'tender-r-1',
      '/home/me/my project/ws',
      'cursor://vscode-remote/ssh-remote+tender-r-1/home/me/my%20project/ws',
    ],
    ['code', 'tender-r-1', '/a#b?c', 'vscode://vscode-remote/ssh-remote+tender-r-1/a%23b%3Fc'],
  ])('%s %s %s', (editor, alias, folder, url) => {
    expect(editorUrl(editor, alias, folder)).toBe(url);
    expect(parseEditorUrl(url)).toEqual({ editor, alias, folder });
  });

  it.each([
    'https://vscode-remote/ssh-remote+x/y',
    'vscode://vscode-remote/ssh-remote+a b/y',
    'vscode://vscode-remote/ssh-remote+x',
    'vscode://file/home/x',
  ])('%s is not one of ours', (url) => {
    expect(parseEditorUrl(url)).toBeNull();
  });

  it('the editor command line names the same folder', () => {
    expect(editorArgs('tender-r-1', '/w s')).toEqual([
      '--folder-uri',
      'vscode-remote://ssh-remote+tender-r-1/w%20s',
    ]);
  });

  it.each([
    ['vscode', 'code'],
    ['cursor', 'cursor'],
  ] as const)('a link the app builds (%s) parses back to the alias and folder', (_s, editor) => {
    const url = editorUrl(editor, 'tender-r-k3x9a2mf-node-1', '/root/.tender/nodes/L 1/workspace');
    expect(parseEditorUrl(url)).toEqual({
      editor,
      alias: 'tender-r-k3x9a2mf-node-1',
      folder: '/root/.tender/nodes/L 1/workspace',
    });
    expect(sshCommand('tender-r-k3x9a2mf-node-1')).toBe('ssh tender-r-k3x9a2mf-node-1');
  });

  it('a malformed escape is not one of ours', () => {
    expect(parseEditorUrl('vscode://vscode-remote/ssh-remote+x/%E0%A4%A')).toBeNull();
  });
});
