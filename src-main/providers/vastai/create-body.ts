// What a create asks Vast.ai for: the image, how sessions reach the node, and the body of
// PUT /api/v0/asks/{id}/.
import { LABEL_ENV } from './lease-facts';

/** Comes with CUDA 12.4, cuDNN 9, PyTorch 2.5.1 and Python 3.11 on Ubuntu 22.04: the
 *  common denominator of GPU jobs. Vast.ai's `ssh` launch adds sshd; Tender pushes Node. */
export const DEFAULT_IMAGE = 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime';

/** Vast.ai's ssh launch runs each SSH session inside tmux unless this file exists; Tender's
 *  commands need plain exec channels (vast.ai docs; SkyPilot's onstart does the same). */
export const ONSTART = 'touch ~/.no_auto_tmux';

/** What vast.py sends for `--ssh --direct`: a direct port mapping for 22, and the proxy as a
 *  fallback. (The OpenAPI enum spells it `ssh_direct`; the CLI's string is the one in use.) */
export const RUNTYPE = 'ssh_direc ssh_proxy';

/** The body of PUT /api/v0/asks/{id}/ (vast.py create__instance; create_instance.yaml).
 *  With `bid`, an interruptible instance: `price` is the bid, $/h for the machine (vast.py
 *  --bid_price; without it Vast.ai rents on-demand whatever the search was). */
export function createBody(
  label: string,
  image: string,
  diskGb: number,
  bid?: number,
  openPorts: number[] = [],
): Record<string, unknown> {
  return {
    ...(bid !== undefined ? { price: bid } : {}),
    client_id: 'me',
    image,
    disk: diskGb,
    label,
    // A JSON object, as vast.py's parse_env sends it (the OpenAPI file says a string).
    // Ports mapped to the host's (`-p P:P`, vast.py's form): the instance reports where each
    // landed in `ports["P/tcp"]`.
    env: { [LABEL_ENV]: label, ...Object.fromEntries(openPorts.map((p) => [`-p ${p}:${p}`, '1'])) },
    onstart: ONSTART,
    runtype: RUNTYPE,
    // The container runs as root whatever the image's USER (vast.py `--user`, "user to use
    // with docker create"; dstack sends the same for non-root images, dstack#2185): the ssh
    // launch mode logs in as root, and a non-root image would leave root without a way in.
    user: 'root',
    // Fail at once rather than leave a stopped instance that bills for its disk (a bid too,
    // though Vast.ai defaults it to false there: a bid that cannot run now is no lease).
    cancel_unavail: true,
  };
}
