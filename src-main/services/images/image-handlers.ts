// `images.inspect`: what an image's registry tells before renting (size, platforms, user),
// judged the way the marketplaces judge it before a create (providers/images/).
import type { Handlers, ImageInfo } from '../../contract';
import { judgeImage, sizeText } from '../../providers/images/image-check';
import type { ImageLookup, InspectImage } from '../../providers/images/registry-client';

const INSPECT_DEADLINE_MS = 10_000;

export function imageHandlers(d: { inspect: InspectImage }): Pick<Handlers, 'images.inspect'> {
  return {
    'images.inspect': async ({ image }) =>
      imageInfo(
        image.trim(),
        await d.inspect(image.trim(), AbortSignal.timeout(INSPECT_DEADLINE_MS)),
      ),
  };
}

export function imageInfo(image: string, lookup: ImageLookup): ImageInfo {
  const facts = 'facts' in lookup ? lookup.facts : null;
  // Hosts unknown here: only what no host can run (no shell, not Linux) is a problem.
  const verdict = judgeImage(image, facts, []);
  return {
    image,
    sizeBytes: facts?.compressedBytes ?? null,
    sizeText: sizeText(facts, 'unknown' in lookup ? lookup.unknown : undefined),
    platforms: facts ? facts.platforms.map((p) => `${p.os}/${p.architecture}`) : [],
    user: facts ? facts.user.split(':')[0] || 'root' : null,
    problem: verdict.ok ? null : verdict.reason,
  };
}
