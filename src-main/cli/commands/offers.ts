import { parseArgs } from 'node:util';
import type { Offer } from '../../contract';
import { TenderCore } from '../../core/tender-core';
import { call, type CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { bold, info, table } from '../output';
import { positiveNumber } from './flags';
import { imagesCommand, imagesFooter } from './offers-images';

export const OFFERS_USAGE =
  'tender offers [--provider vastai,runpod,lambda] [--gpu "RTX 4090"] [--gpus N] [--min-vram-gb N] [--max-price X] [--disk-gb N] [--region R] [--count N] [--interruptible] [--all-hosts] [--json]\n  tender offers --images | --image NAME [--json]';

/** Rentable machines from every configured marketplace (or those --provider names), in one
 *  table, cheapest all-in $/h first (GPU plus storage for the disk asked), with the
 *  interruptible price beside; --interruptible: only offers that take a bid, cheapest bid
 *  first. With --count N, the N a `tender run --count N` would rent, and what they cost
 *  together. A marketplace that fails is named on stderr; the others' offers still show. */
export async function offersCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      provider: { type: 'string' },
      region: { type: 'string' },
      gpu: { type: 'string' },
      gpus: { type: 'string' },
      'min-vram-gb': { type: 'string' },
      'max-price': { type: 'string' },
      'disk-gb': { type: 'string' },
      count: { type: 'string' },
      'all-hosts': { type: 'boolean', default: false },
      interruptible: { type: 'boolean', default: false },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
      images: { type: 'boolean', default: false },
      image: { type: 'string' },
    },
  });
  const count = values.count === undefined ? 1 : positiveNumber('--count', values.count, true);
  const filter = {
    ...(values.gpu ? { gpu: values.gpu } : {}),
    ...(values.gpus ? { gpuCount: positiveNumber('--gpus', values.gpus, true) } : {}),
    ...(values['min-vram-gb']
      ? { minVramGb: positiveNumber('--min-vram-gb', values['min-vram-gb']) }
      : {}),
    ...(values['max-price']
      ? { maxPrice: positiveNumber('--max-price', values['max-price']) }
      : {}),
    ...(values['disk-gb'] ? { diskGb: positiveNumber('--disk-gb', values['disk-gb'], true) } : {}),
    ...(values.region ? { region: values.region } : {}),
    includeFailedHosts: values['all-hosts'] === true,
    ...(values.interruptible ? { interruptible: true } : {}),
    limit: values.limit ? positiveNumber('--limit', values.limit, true) : Math.max(20, count),
  };
  const core = TenderCore.openAny(ctx.coreOptions) ?? TenderCore.open(ctx.coreOptions);
  try {
    if (values.images || values.image !== undefined)
      return await imagesCommand(core, values.image, values.json);
    const providers = values.provider?.split(',').map((p) => p.trim());
    const found = await call(core, 'offers.searchAll', {
      ...(providers ? { providers } : {}),
      filter,
    });
    const offers = found.offers;
    for (const s of found.sources)
      if (s.error)
        info(`${s.provider}: ${s.error.message}${s.error.hint ? ` (${s.error.hint})` : ''}`);
    if (values.json) {
      process.stdout.write(JSON.stringify(offers) + '\n');
      return offers.length >= count ? EXIT.ok : EXIT.infrastructure;
    }
    if (offers.length === 0) {
      info(
        'no offers match: loosen the filter (--max-price, --min-vram-gb, --gpu) or add --all-hosts',
      );
      return EXIT.infrastructure;
    }
    const interruptible = values.interruptible === true;
    process.stdout.write(render(offers, count) + '\n');
    imagesFooter();
    if (offers.length < count) {
      info(`only ${offers.length} offer(s) match, fewer than --count ${count}`);
      return EXIT.infrastructure;
    }
    const price = (o: Offer) =>
      interruptible ? (o.interruptiblePricePerHour ?? o.pricePerHour) : o.pricePerHour;
    const total = offers.slice(0, count).reduce((n, o) => n + price(o), 0);
    if (count > 1)
      info(
        bold(
          `the ${count} cheapest cost $${total.toFixed(3)}/h together${interruptible ? ' at their minimum bids' : ''}`,
        ),
      );
    if (interruptible)
      info(
        'an interruptible lease bills its bid plus storage, and stops (keeping its disk) when outbid; `tender run --interruptible` bids the minimum + 10%',
      );
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

function render(offers: Offer[], count: number): string {
  const rows = [
    [
      '',
      'PROVIDER',
      'OFFER',
      'GPU',
      'VRAM',
      '$/h ALL-IN',
      '(GPU + DISK)',
      'INTERRUPTIBLE',
      'RELIAB.',
      'DOWN/UP Mb/s',
      'WHERE',
      'HOST',
    ],
  ];
  offers.forEach((o, i) =>
    rows.push([
      i < count ? '*' : '',
      o.provider,
      o.offerId,
      `${o.gpuCount}× ${o.gpuName}`,
      `${o.vramGb.toFixed(0)} GB`,
      `$${o.pricePerHour.toFixed(3)}`,
      `(${o.gpuPricePerHour.toFixed(3)} + ${o.storagePricePerHour.toFixed(3)})`,
      o.interruptiblePricePerHour === undefined
        ? '-'
        : `$${o.interruptiblePricePerHour.toFixed(3)}`,
      o.reliability === null ? '-' : o.reliability.toFixed(3),
      `${o.downMbps.toFixed(0)}/${o.upMbps.toFixed(0)}`,
      o.location ?? '-',
      o.machineId,
    ]),
  );
  return table(rows);
}
