// A Tender core with a fake Vast.ai (real sshd nodes) and the local provider, served in web
// mode with a little history already in the ledger: what the UI looks like with real data.
// For working on the renderer and for screenshots; needs root (the fake's nodes are users).
//   node build/build-renderer.mjs /tmp/r && node bench/run.mjs test/demo/ui-demo.ts --renderer /tmp/r [--port N] [--empty]
// Prints `Tender web UI: http://127.0.0.1:PORT/?token=…` first, then what it seeded.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startWebServer } from '../../src-main/api/ws-server';
import type { OfferSeed } from '../fakes/vast';
import { vastSetup } from '../helpers/vast-core';

const { values } = parseArgs({
  options: {
    renderer: { type: 'string', default: resolve(import.meta.dirname, '../../out/renderer') },
    port: { type: 'string', default: '0' },
    empty: { type: 'boolean', default: false },
  },
});

const offers: OfferSeed[] = [
  { gpu_name: 'RTX 4090', dph_base: 0.34, geolocation: 'Sweden, SE', reliability: 0.998 },
  { gpu_name: 'RTX 4090', dph_base: 0.39, geolocation: 'Germany, DE', reliability: 0.991 },
  {
    gpu_name: 'RTX 3090',
    dph_base: 0.19,
    gpu_ram: 24_576,
    geolocation: 'Poland, PL',
    inet_down: 420,
    reliability: 0.972,
  },
  {
    gpu_name: 'A100 SXM4',
    dph_base: 1.12,
    gpu_ram: 81_920,
    geolocation: 'Texas, US',
    compute_cap: 800,
    reliability: 0.995,
  },
  {
    gpu_name: 'H100 SXM',
    dph_base: 2.35,
    gpu_ram: 81_920,
    num_gpus: 2,
    geolocation: 'Oregon, US',
    compute_cap: 900,
    reliability: 0.999,
  },
  {
    gpu_name: 'RTX A6000',
    dph_base: 0.47,
    gpu_ram: 49_140,
    geolocation: 'Quebec, CA',
    reliability: 0.981,
    verification: 'unverified',
  },
  {
    gpu_name: 'L40S',
    dph_base: 0.79,
    gpu_ram: 46_068,
    geolocation: 'Finland, FI',
    reliability: 0.994,
  },
];

const env = await vastSetup({ offers });
const work = join(env.home, '..', 'demo-work');
mkdirSync(work, { recursive: true });
cpSync(resolve(import.meta.dirname, '../../resources/examples/hello'), work, { recursive: true });
writeFileSync(join(work, '.env'), 'WANDB_API_KEY=not-a-real-key\n');

const server = await startWebServer(env.core, {
  rendererDir: values.renderer,
  port: Number(values.port),
});
console.log(`Tender web UI: ${server.url}`);
console.log(`demo workspace: ${work}`);
console.log(`fake Vast.ai: ${env.fake.url}`);

if (!values.empty) {
  // A finished local run (outputs collected, leases destroyed) and one still running.
  const done = await env.run({
    job: {
      name: 'hello',
      setup: 'echo setting up && mkdir -p out',
      run: 'sh run.sh',
      workspace: { workdir: work, exclude: ['/data', '*.ckpt'] },
      outputs: ['out/metrics.json', 'out/loss.csv'],
      env: { SEED: '1' },
      params: { STEPS: '400' },
    },
    pool: { provider: 'local', count: 1 },
  });
  console.log(`finished run: ${done.id} (${done.status})`);
  const live = await env.core.client.invoke('run.start', {
    job: {
      name: 'train-long',
      run: 'i=0; while true; do i=$((i+1)); printf "\\033[32mstep %d\\033[0m loss=%s\\n" $i 0.$(( (i * 7919) % 1000 )); sleep 0.5; done',
      workspace: { workdir: work, exclude: ['/data', '*.ckpt'] },
    },
    pool: { provider: 'vastai', count: 2, gpu: 'RTX 4090' },
  });
  if (live.ok) console.log(`running run: ${live.value.id}`);
  else console.log(`could not start the live run: ${live.error.message}`);
}

const stop = async () => {
  await server.close();
  await env.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
