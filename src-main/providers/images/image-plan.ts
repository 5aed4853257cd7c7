// A marketplace's look at the image it is about to rent a node for: ask the registry (when
// the provider was given an inspector), judge, and say in one line what it learned.
import { judgeImage, sizeText, type ImageVerdict } from './image-check';
import type { ImageFacts, ImageLookup, InspectImage, RegistryLogin } from './registry-client';

export interface ImagePlan {
  verdict: ImageVerdict;
  facts: ImageFacts | null;
  /** For the node's log: "image X: 3.2 GB compressed (docker.io), runs as root". */
  note: string;
}

export async function planImage(
  image: string,
  inspect: InspectImage | undefined,
  hostArchs: readonly string[],
  signal: AbortSignal,
  login?: RegistryLogin,
): Promise<ImagePlan> {
  const lookup = inspect ? await inspect(image, signal, login) : { unknown: 'registry not asked' };
  const facts = 'facts' in lookup ? lookup.facts : null;
  const verdict = judgeImage(image, facts, hostArchs);
  const runsAs = facts ? `, runs as ${facts.user.split(':')[0] || 'root'}` : '';
  const size = sizeText(facts, 'unknown' in lookup ? lookup.unknown : undefined);
  return { verdict, facts, note: `image ${image}: ${size}${runsAs}` };
}

/** An inspector that asks again only after a while: an answer is kept `ttlMs`, a failure
 *  `unknownTtlMs` (a run's pre-flight and its nodes' creates share one look, and an
 *  unreachable registry is not waited for once per node). */
export function cachedInspector(
  inner: InspectImage,
  ttlMs = 10 * 60_000,
  unknownTtlMs = 60_000,
  now: () => number = Date.now,
): InspectImage {
  const seen = new Map<string, { until: number; lookup: ImageLookup }>();
  return async (image, signal, login) => {
    // Per login name: what a login sees is not what anyone sees (never keyed by a password).
    const key = `${image}\n${login?.username ?? ''}`;
    const hit = seen.get(key);
    if (hit && now() < hit.until) return hit.lookup;
    const lookup = await inner(image, signal, login);
    seen.set(key, { until: now() + ('facts' in lookup ? ttlMs : unknownTtlMs), lookup });
    return lookup;
  };
}
