// The images part of `tender offers`: the well-known list (contract/well-known-images.json)
// after the offers, and `--images` / `--image NAME` with what each registry says of its size.
import { CACHED_IMAGES_START_FASTEST, WELL_KNOWN_IMAGES, type ImageInfo } from '../../contract';
import type { TenderCore } from '../../core/tender-core';
import { call } from '../context';
import { EXIT } from '../exit-codes';
import { info, table } from '../output';

/** A few lines under the offers table (stderr): the images that start fastest where. */
export function imagesFooter(): void {
  info(`Images — ${CACHED_IMAGES_START_FASTEST}`);
  for (const w of WELL_KNOWN_IMAGES)
    info(
      `  ${w.image}  ${w.title}${w.cachedOn.length ? ` (likely cached on ${w.cachedOn.join(', ')})` : ''}`,
    );
  info('`tender offers --images` asks each registry for the sizes; `--image NAME` for any image.');
}

/** `--images` (the well-known list) or `--image NAME`: each with its registry's size. */
export async function imagesCommand(
  core: TenderCore,
  image: string | undefined,
  asJson: boolean,
): Promise<number> {
  const names = image ? [image] : WELL_KNOWN_IMAGES.map((w) => w.image);
  const infos = await Promise.all(names.map((n) => call(core, 'images.inspect', { image: n })));
  if (asJson) {
    process.stdout.write(JSON.stringify(infos) + '\n');
    return EXIT.ok;
  }
  const rows = [['IMAGE', 'SIZE', 'PLATFORMS', 'USER', 'WHAT']];
  for (const i of infos) {
    const w = WELL_KNOWN_IMAGES.find((x) => x.image === i.image);
    const what = w
      ? `${w.title}${w.cachedOn.length ? `; likely cached on ${w.cachedOn.join(', ')}` : ''}`
      : '';
    rows.push([i.image, i.sizeText, i.platforms.join(',') || '-', i.user ?? '-', what]);
  }
  process.stdout.write(table(rows) + '\n');
  info(CACHED_IMAGES_START_FASTEST);
  const bad = infos.filter((i): i is ImageInfo & { problem: string } => i.problem !== null);
  for (const i of bad) info(`${i.image}: ${i.problem}`);
  return bad.length > 0 && image ? EXIT.badInput : EXIT.ok;
}
