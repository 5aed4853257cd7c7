// An image pull as a marketplace host does it, on the fake's clock: shared by the Vast.ai
// and RunPod fakes. The line it shows follows Docker's pull progress ("Pulling fs layer",
// "Downloading [====>     ] 6.84GB/15GB"); whether either marketplace passes those words
// on is not documented (Vast.ai: `status_msg` is "human-readable detail on the current
// status"; RunPod's API has no pull progress at all) — see each fake's README.

export interface ImagePullOptions {
  /** The image's size. */
  sizeGb: number;
  /** How fast the host pulls it, per minute of the fake's clock. */
  gbPerMin: number;
  /** The pull stops here for good (a host whose registry link died), and never completes. */
  stallAtGb?: number;
}

export interface ImagePull {
  sizeBytes: number;
  bytesPerMs: number;
  stallAtBytes: number | null;
}

const GB = 1e9;

export function imagePullOf(o: ImagePullOptions): ImagePull {
  if (!(o.sizeGb > 0 && o.gbPerMin > 0)) throw new Error('image pull: sizeGb and gbPerMin > 0');
  return {
    sizeBytes: o.sizeGb * GB,
    bytesPerMs: (o.gbPerMin * GB) / 60_000,
    stallAtBytes: o.stallAtGb === undefined ? null : o.stallAtGb * GB,
  };
}

export function pulledBytes(p: ImagePull, startedAt: number, now: number): number {
  const moved = Math.max(0, now - startedAt) * p.bytesPerMs;
  return Math.min(moved, p.stallAtBytes ?? Infinity, p.sizeBytes);
}

/** When the pull is complete (the container can start), or null: never, it stalls. */
export function pullDoneAt(p: ImagePull, startedAt: number): number | null {
  if (p.stallAtBytes !== null && p.stallAtBytes < p.sizeBytes) return null;
  return startedAt + Math.ceil(p.sizeBytes / p.bytesPerMs);
}

/** Docker's words for how far it is. */
export function pullLine(p: ImagePull, startedAt: number, now: number): string {
  const done = pulledBytes(p, startedAt, now);
  if (done <= 0) return 'Pulling fs layer';
  if (done >= p.sizeBytes) return 'Download complete';
  const width = 20;
  const filled = Math.floor((done / p.sizeBytes) * width);
  const bar = `[${'='.repeat(filled)}>${' '.repeat(width - filled)}]`;
  return `Downloading ${bar} ${(done / GB).toFixed(2)}GB/${p.sizeBytes / GB}GB`;
}
