// The input of a pod create (podFindAndDeployOnDemand / podRentInterruptable): what the pod
// runs, how SSH reaches it, and Tender's markers in its env.
import type { Offer } from '../../contract/offer';
import type { PodCreateInput } from './api-client';
import { LABEL_ENV } from './lease-facts';
import { bidPerGpu, type Cloud } from './offers';
import { SSH_USER_ENV } from './pod-image';
import { regionInput, type RunpodShape } from './shape';
import { sshStartCommand } from './ssh-start';
import { INTERRUPTIBLE_ENV } from './status';

const DEFAULT_DISK_GB = 32; // OfferFilter's default disk

export interface PodCreate {
  label: string;
  shape: RunpodShape;
  offer: Offer;
  image: string;
  publicKey: string;
  /** null: on-demand; 0: the default bid; else the pool's. */
  bid: number | null;
  /** The user SSH logs in as (pod-image.ts). */
  sshUser: string;
}

export function podCreateInput(c: PodCreate): PodCreateInput {
  const { label, shape, offer, bid } = c;
  const [gpuTypeId = '', cloud = 'SECURE'] = offer.offerId.split('|');
  return {
    name: label,
    imageName: c.image,
    gpuTypeId,
    gpuCount: offer.gpuCount,
    cloudType: cloud as Cloud,
    containerDiskInGb: shape.disk_gb ?? DEFAULT_DISK_GB,
    volumeInGb: 0, // no network volume: a terminated pod leaves nothing billing
    ports: '22/tcp',
    supportPublicIp: true,
    startSsh: true,
    // Tender's start: sshd from PUBLIC_KEY on any image, as the image's user (ssh-start.ts).
    dockerArgs: sshStartCommand(),
    env: [
      { key: 'PUBLIC_KEY', value: c.publicKey },
      { key: LABEL_ENV, value: label },
      { key: SSH_USER_ENV, value: c.sshUser },
      ...(bid !== null ? [{ key: INTERRUPTIBLE_ENV, value: '1' }] : []),
    ],
    ...regionInput(shape.region),
    ...(bid !== null
      ? { bidPerGpu: bid === 0 ? bidPerGpu(offer, undefined) : bidPerGpu(offer, shape.bid) }
      : {}),
  };
}
