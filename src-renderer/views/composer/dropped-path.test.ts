import { describe, expect, it } from 'vitest';
import { isJobFile, pathFromDrop, pathFromFileUri } from './dropped-path';

const drop = (data: Record<string, string>) => ({
  types: Object.keys(data),
  getData: (t: string) => data[t] ?? '',
});

describe('pathFromDrop', () => {
  it('reads a file manager uri-list, skipping comments, decoding escapes', () => {
    expect(
      pathFromDrop(
        drop({
          'text/uri-list': '# from nautilus\r\nfile:///home/me/my%20proj\r\nfile:///other\r\n',
        }),
      ),
    ).toBe('/home/me/my proj');
    expect(pathFromDrop(drop({ 'text/uri-list': 'file://localhost/srv/x' }))).toBe('/srv/x');
  });

  it('takes an absolute path or a file URI given as text; refuses anything else', () => {
    expect(pathFromDrop(drop({ 'text/plain': '  /home/me/proj\n' }))).toBe('/home/me/proj');
    expect(pathFromDrop(drop({ 'text/plain': '~/proj' }))).toBe('~/proj');
    expect(pathFromDrop(drop({ 'text/plain': 'file:///a/b' }))).toBe('/a/b');
    expect(pathFromDrop(drop({ 'text/plain': 'relative/path' }))).toBeNull();
    expect(pathFromDrop(drop({ 'text/uri-list': 'https://example.com/x' }))).toBeNull();
    expect(pathFromDrop(drop({ Files: '' }))).toBeNull();
  });

  it('falls back to text when the uri-list names no local file', () => {
    expect(
      pathFromDrop(drop({ 'text/uri-list': 'https://example.com', 'text/plain': '/x/y' })),
    ).toBe('/x/y');
  });
});

describe('pathFromFileUri / isJobFile', () => {
  it('refuses other hosts and bad escapes', () => {
    expect(pathFromFileUri('file://server/share')).toBeNull();
    expect(pathFromFileUri('file:///a%ZZ')).toBeNull();
  });
  it('recognises a job file by its extension', () => {
    expect(isJobFile('/w/tender.toml')).toBe(true);
    expect(isJobFile('/w/other.TOML')).toBe(true);
    expect(isJobFile('/w/task.yaml')).toBe(true); // SkyPilot: loaded as `tender import` writes it
    expect(isJobFile('/w/.dstack.yml')).toBe(true);
    expect(isJobFile('/w/proj/')).toBe(false);
  });
});
