import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, trayIconPng } from './tray-icon-png';

/** Reads back what encodePng wrote: size and RGBA pixels, checking every chunk's CRC. */
function decode(png: Buffer): { width: number; height: number; rgba: Buffer } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  let at = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  const types: string[] = [];
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    expect(png.readUInt32BE(at + 8 + len)).toBe(crc32(png.subarray(at + 4, at + 8 + len)));
    types.push(type);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([...data.subarray(8)]).toEqual([8, 6, 0, 0, 0]);
    }
    if (type === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  expect(types).toEqual(['IHDR', 'IDAT', 'IEND']);
  const raw = inflateSync(Buffer.concat(idat));
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width * 4 + 1)]).toBe(0);
    raw.copy(rgba, y * width * 4, y * (width * 4 + 1) + 1, (y + 1) * (width * 4 + 1));
  }
  return { width, height, rgba };
}

const pixel = (img: ReturnType<typeof decode>, x: number, y: number) => [
  ...img.rgba.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4),
];

describe('tray icon', () => {
  it('is a valid RGBA PNG at 16 and 32 px', () => {
    for (const size of [16, 32]) {
      const img = decode(trayIconPng('billing', size));
      expect([img.width, img.height]).toEqual([size, size]);
    }
  });

  it('billing: an opaque amber dot on a transparent square', () => {
    const img = decode(trayIconPng('billing', 16));
    expect(pixel(img, 8, 8)).toEqual([245, 158, 11, 255]);
    expect(pixel(img, 0, 0)[3]).toBe(0);
  });

  it('idle: a grey ring with a transparent middle', () => {
    const img = decode(trayIconPng('idle', 32));
    expect(pixel(img, 16, 16)[3]).toBe(0);
    expect(pixel(img, 16, 4)).toEqual([128, 128, 128, 255]);
    expect(pixel(img, 0, 0)[3]).toBe(0);
  });

  it('crc32 matches the standard check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });
});
