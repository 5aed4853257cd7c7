import { describe, expect, it } from 'vitest';
import {
  isForwardUrl,
  isEditorUrl,
  isHttpsUrl,
  isRendererUrl,
  rendererSource,
  type RendererSource,
} from './trusted-urls';

describe('renderer source', () => {
  it('is the built index.html unless electron-vite dev names a server', () => {
    expect(rendererSource(undefined, '/opt/tender/out/renderer/index.html')).toEqual({
      kind: 'file',
      indexPath: '/opt/tender/out/renderer/index.html',
    });
    expect(rendererSource('http://localhost:5173/', '/x/index.html')).toEqual({
      kind: 'dev',
      url: 'http://localhost:5173/',
      origin: 'http://localhost:5173',
    });
  });

  it('refuses a dev server that is not on this machine', () => {
    expect(() => rendererSource('http://example.com:5173', '/x')).toThrow(/on this machine/);
    expect(() => rendererSource('https://localhost:5173', '/x')).toThrow(/http:\/\//);
  });
});

describe('isRendererUrl', () => {
  const file: RendererSource = { kind: 'file', indexPath: '/opt/Tender App/renderer/index.html' };

  it('accepts our index.html with any hash or query', () => {
    const url = 'file:///opt/Tender%20App/renderer/index.html';
    expect(isRendererUrl(url, file, 'linux')).toBe(true);
    expect(isRendererUrl(`${url}#/ledger`, file, 'linux')).toBe(true);
    expect(isRendererUrl(`${url}?x=1`, file, 'linux')).toBe(true);
  });

  it('refuses any other file, scheme or host', () => {
    expect(isRendererUrl('file:///opt/Tender%20App/renderer/other.html', file, 'linux')).toBe(
      false,
    );
    expect(isRendererUrl('file:///etc/passwd', file, 'linux')).toBe(false);
    expect(isRendererUrl('file://evil/opt/Tender%20App/renderer/index.html', file, 'linux')).toBe(
      false,
    );
    expect(isRendererUrl('https://opt/Tender%20App/renderer/index.html', file, 'linux')).toBe(
      false,
    );
    expect(isRendererUrl('about:blank', file, 'linux')).toBe(false);
    expect(isRendererUrl('not a url', file, 'linux')).toBe(false);
    expect(isRendererUrl('file:///opt/tender%20app/renderer/index.html', file, 'linux')).toBe(
      false,
    );
  });

  it('ignores case where the file system does (Windows, macOS)', () => {
    const win: RendererSource = { kind: 'file', indexPath: 'C:\\Tender\\renderer\\index.html' };
    expect(isRendererUrl('file:///c:/tender/renderer/index.html', win, 'win32')).toBe(true);
    expect(isRendererUrl('file:///c:/tender/renderer/evil.html', win, 'win32')).toBe(false);
    expect(isRendererUrl('file:///OPT/tender%20app/renderer/INDEX.html', file, 'darwin')).toBe(
      true,
    );
  });

  it('accepts only the dev server origin in dev', () => {
    const dev = rendererSource('http://localhost:5173', '/x');
    expect(isRendererUrl('http://localhost:5173/', dev)).toBe(true);
    expect(isRendererUrl('http://localhost:5173/src/main.tsx?t=1', dev)).toBe(true);
    expect(isRendererUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isRendererUrl('http://127.0.0.1:5173/', dev)).toBe(false);
    expect(isRendererUrl('file:///x', dev)).toBe(false);
  });
});

describe('isForwardUrl', () => {
  it.each([
    ['http://127.0.0.1:16006/', true],
    ['http://localhost:8888/?token=abc', true],
    ['http://127.0.0.1/', false],
    ['http://example.com:8080/', false],
    ['http://user:pw@127.0.0.1:8080/', false],
    ['file:///etc/passwd', false],
    ['https://127.0.0.1:443/', false],
    ['not a url', false],
  ])('%s → %s', (url, ok) => {
    expect(isForwardUrl(url)).toBe(ok);
  });
});

describe('isHttpsUrl', () => {
  it('lets only https out', () => {
    expect(isHttpsUrl('https://vast.ai/docs')).toBe(true);
    for (const url of [
      'http://vast.ai',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'smb://x',
      '',
    ]) {
      expect(isHttpsUrl(url)).toBe(false);
    }
  });
});

describe('isEditorUrl', () => {
  it.each([
    'vscode://vscode-remote/ssh-remote+tender-r-k3x9a2mf-node-0/root/.tender/nodes/L/workspace',
    'cursor://vscode-remote/ssh-remote+tender-r-1/home/me/my%20project',
  ])('%s opens in the editor', (url) => {
    expect(isEditorUrl(url)).toBe(true);
  });

  it.each([
    'vscode://file/etc/passwd',
    'vscode://ms-vscode.some-extension/run?x=1',
    'vscode://vscode-remote/ssh-remote+evil-host/root',
    'vscode://vscode-remote/ssh-remote+tender-r-1',
    'vscode://vscode-remote/wsl+tender-r-1/root',
    'cursor://vscode-remote/ssh-remote+tender-r 1/x',
    'zed://vscode-remote/ssh-remote+tender-r-1/x',
  ])('%s does not', (url) => {
    expect(isEditorUrl(url)).toBe(false);
  });
});
