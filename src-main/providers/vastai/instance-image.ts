// The image of an instance, judged before the create against the offers' hosts: an image
// no offer's CPU can run is refused with its reason (nothing rented), and offers whose CPU
// the image was not built for are left out (Vast.ai lists arm64 hosts beside amd64 ones,
// `cpu_arch`). Vast.ai's ssh launch mode brings sshd into any image and `user: root` makes
// it log in as root (create-body.ts), so the user the image runs as does not matter here.
import { TenderError } from '../../base/tender-error';
import type { Offer } from '../../contract/offer';
import { dockerArch } from '../images/image-check';
import { planImage } from '../images/image-plan';
import type { InspectImage, RegistryLogin } from '../images/registry-client';
import { ProviderError } from '../provider';
import { DEFAULT_IMAGE } from './create-body';

export type { InspectImage } from '../images/registry-client';
import type { VastShape } from './shape';

/** The offers the image can run on; the note names its size. Throws a fatal error naming
 *  why when it can run on none of them. */
export async function instanceImage(
  image: string,
  offers: Offer[],
  opts: { inspectImage?: InspectImage | undefined },
  note: ((line: string) => void) | undefined,
  signal: AbortSignal,
  login?: RegistryLogin | null,
): Promise<Offer[]> {
  const archs = [...new Set(offers.flatMap((o) => (o.cpuArch ? [dockerArch(o.cpuArch)] : [])))];
  const plan = await planImage(image, opts.inspectImage, archs, signal, login ?? undefined);
  if (!plan.verdict.ok)
    throw new ProviderError(plan.verdict.reason, { fatal: true, hint: plan.verdict.hint });
  note?.(plan.note);
  const built = new Set(
    (plan.facts?.platforms ?? [])
      .filter((p) => p.os === 'linux')
      .map((p) => dockerArch(p.architecture)),
  );
  if (built.size === 0) return offers;
  return offers.filter((o) => !o.cpuArch || built.has(dockerArch(o.cpuArch)));
}

/** The pre-flight's look: an image that can run on no host (no shell, not Linux) is bad
 *  input; its CPU is judged against the offers at the create. */
export async function checkInstanceImage(
  shape: VastShape,
  opts: { inspectImage?: InspectImage | undefined; defaultImage?: string | undefined },
  signal: AbortSignal,
): Promise<void> {
  const image = shape.image ?? opts.defaultImage ?? DEFAULT_IMAGE;
  const plan = await planImage(image, opts.inspectImage, [], signal);
  if (!plan.verdict.ok) throw new TenderError('bad_input', plan.verdict.reason, plan.verdict.hint);
}
