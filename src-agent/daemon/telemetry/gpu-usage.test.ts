import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGpuUsage } from './gpu-usage';

const fixture = (name: string) =>
  readFileSync(join(__dirname, '../../../test/fixtures/nvidia-smi', name), 'utf8');

describe('parseGpuUsage', () => {
  it.each([
    {
      name: 'a single A100 80GB',
      text: fixture('a100-80gb.usage.csv'),
      want: [{ i: 0, util: 87, memUsed: 31245, memTotal: 81920 }],
    },
    {
      name: 'a mixed 4090 + 3090 box',
      text: fixture('mixed-4090-3090.usage.csv'),
      want: [
        { i: 0, util: 3, memUsed: 1571, memTotal: 24564 },
        { i: 1, util: 0, memUsed: 18, memTotal: 24576 },
      ],
    },
    {
      name: 'a MIG-enabled GPU has no utilisation',
      text: fixture('a100-mig.usage.csv'),
      want: [
        { i: 0, util: 58, memUsed: 23100, memTotal: 81920 },
        { i: 1, util: null, memUsed: 24205, memTotal: 81920 },
      ],
    },
    {
      name: 'memory nvidia-smi cannot read',
      text: fixture('vram-na.usage.csv'),
      want: [{ i: 0, util: 0, memUsed: null, memTotal: null }],
    },
    {
      name: 'an old GeForce: [Not Supported]',
      text: '0, [Not Supported], 512, 2048\n',
      want: [{ i: 0, util: null, memUsed: 512, memTotal: 2048 }],
    },
    {
      name: 'CRLF line ends, out of order',
      text: '1, 5, 10, 20\r\n0, 6, 11, 20\r\n',
      want: [
        { i: 0, util: 6, memUsed: 11, memTotal: 20 },
        { i: 1, util: 5, memUsed: 10, memTotal: 20 },
      ],
    },
    { name: 'a broken driver', text: fixture('driver-failure.txt'), want: [] },
    { name: 'the capability query instead', text: fixture('h100x8.query.csv'), want: [] },
    { name: 'nothing', text: '', want: [] },
    { name: 'a utilisation over 100%', text: '0, 250, 1, 2\n', want: [] },
    {
      name: 'a header line',
      text: 'index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n',
      want: [],
    },
  ])('$name', ({ text, want }) => {
    expect(parseGpuUsage(text)).toEqual(want);
  });

  it('reads all 8 GPUs of an H100 box, the idle one too', () => {
    const gpus = parseGpuUsage(fixture('h100x8.usage.csv'));
    expect(gpus.map((g) => g.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(gpus[6]).toEqual({ i: 6, util: 0, memUsed: 4, memTotal: 81559 });
    expect(gpus[2]!.util).toBe(100);
  });
});
