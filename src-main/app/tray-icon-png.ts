import { deflateSync } from 'node:zlib';

/** The tray icon, drawn at start-up: a filled amber dot while leases bill, a grey ring when
 *  nothing does. Drawn rather than shipped so no packaging path can lose it. */
export type TrayIconState = 'billing' | 'idle';

const AMBER: Rgb = [245, 158, 11];
const GREY: Rgb = [128, 128, 128];
const SUBSAMPLES = 4; // 4×4 samples per pixel: a smooth edge at 16 px

type Rgb = [number, number, number];

/** A square RGBA PNG of `size` pixels. */
export function trayIconPng(state: TrayIconState, size: number): Buffer {
  const rgba = Buffer.alloc(size * size * 4);
  const c = size / 2;
  const outer = size * 0.42;
  const inner = state === 'billing' ? 0 : size * 0.26;
  const color = state === 'billing' ? AMBER : GREY;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let hits = 0;
      for (let sy = 0; sy < SUBSAMPLES; sy++) {
        for (let sx = 0; sx < SUBSAMPLES; sx++) {
          const d = Math.hypot(x + (sx + 0.5) / SUBSAMPLES - c, y + (sy + 0.5) / SUBSAMPLES - c);
          if (d <= outer && d >= inner) hits++;
        }
      }
      const i = (y * size + x) * 4;
      rgba[i] = color[0];
      rgba[i + 1] = color[1];
      rgba[i + 2] = color[2];
      rgba[i + 3] = Math.round((255 * hits) / (SUBSAMPLES * SUBSAMPLES));
    }
  }
  return encodePng(size, size, rgba);
}

/** PNG: signature, IHDR (8-bit RGBA), one IDAT of unfiltered rows, IEND. */
export function encodePng(width: number, height: number, rgba: Buffer): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
