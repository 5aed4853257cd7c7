// A fake `nvidia-smi` for a node's PATH: the A100 fixture's capability probe and banner, and
// `usage` as what the GPU sampler reads (nvidia-smi's real CSV shapes, test/fixtures).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '../fixtures/nvidia-smi', name), 'utf8');

/** Writes the fake into `bin` (created); rewrite `<bin>/usage.csv` to change the readings.
 *  With `<bin>/vary` present every reading differs (the shell's pid as the utilisation). */
export function writeFakeNvidiaSmi(bin: string, usage: string): string {
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'usage.csv'), usage);
  writeFileSync(join(bin, 'query.csv'), fixture('a100-80gb.query.csv'));
  writeFileSync(join(bin, 'banner.txt'), fixture('a100-80gb.banner.txt'));
  writeFileSync(
    join(bin, 'nvidia-smi'),
    [
      '#!/bin/sh',
      'case "$1" in',
      `  --query-gpu=index,utilization.gpu,*) if [ -f ${join(bin, 'vary')} ]; then echo "0, $(($$ % 100)), 31245, 81920"; else cat ${join(bin, 'usage.csv')}; fi ;;`,
      `  --query-gpu=*) cat ${join(bin, 'query.csv')} ;;`,
      `  *) cat ${join(bin, 'banner.txt')} ;;`,
      'esac',
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'nvidia-smi'), 0o755);
  return bin;
}
