// The image of a pod: judged before the create (nothing rented for an image that cannot
// work), and the user SSH logs in as, which RunPod cannot override (no `--user`:
// runpod-python#399): root, or the image's own user when its config names one. The user
// travels in the pod's env (TENDER_SSH_USER) so that it is known again from the pod alone
// after a restart of Tender.
import { TenderError } from '../../base/tender-error';
import { ProviderError } from '../provider';
import { planImage, type ImagePlan } from '../images/image-plan';
import type { InspectImage, RegistryLogin } from '../images/registry-client';
import { envOf } from './lease-facts';

export const SSH_USER_ENV = 'TENDER_SSH_USER';

/** RunPod's GPU pods run on x86-64 hosts; its GraphQL offers carry no architecture. */
export const RUNPOD_HOST_ARCHS = ['amd64'];

export interface PodImage {
  plan: ImagePlan;
  sshUser: string;
}

/** The verdict as a create sees it: a refusal is a fatal error naming the fix. */
export async function podImage(
  image: string,
  inspect: InspectImage | undefined,
  signal: AbortSignal,
  login?: RegistryLogin | null,
): Promise<PodImage> {
  const plan = await planImage(image, inspect, RUNPOD_HOST_ARCHS, signal, login ?? undefined);
  const problem = podImageProblem(plan);
  if (problem) throw new ProviderError(problem.reason, { fatal: true, hint: problem.hint });
  const user = plan.verdict.ok ? plan.verdict.user : { kind: 'root' as const };
  return { plan, sshUser: user.kind === 'named' ? user.name : 'root' };
}

/** The pre-flight's look: an image that cannot run a node is bad input, named. */
export async function checkPodImage(
  image: string,
  inspect: InspectImage | undefined,
  signal: AbortSignal,
): Promise<void> {
  const problem = podImageProblem(await planImage(image, inspect, RUNPOD_HOST_ARCHS, signal));
  if (problem) throw new TenderError('bad_input', problem.reason, problem.hint);
}

/** Why the image cannot run a node on RunPod, or null. */
export function podImageProblem(plan: ImagePlan): { reason: string; hint: string } | null {
  if (!plan.verdict.ok) return plan.verdict;
  const user = plan.verdict.user;
  if (user.kind === 'uid')
    return {
      reason: `image ${plan.facts?.ref ?? ''} runs as uid ${user.uid}, a user without a name: SSH on RunPod logs in as the image's user (RunPod cannot run a pod as another), by name`,
      hint: 'give the image a named user (`USER researcher`) or root, or use another image',
    };
  return null;
}

/** The user an SSH session logs in as on this pod: the one its create chose. */
export function sshUserOfPod(pod: Record<string, unknown>): string {
  return envOf(pod)[SSH_USER_ENV] || 'root';
}
