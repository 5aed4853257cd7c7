// Container images as the contract shows them: the well-known list (one data file,
// well-known-images.json) and what the registry tells about an image before renting.
import { z } from 'zod';
import data from './well-known-images.json';

export const WellKnownImage = z.object({
  image: z.string(),
  title: z.string(),
  publisher: z.string(),
  /** Marketplaces whose hosts are likeliest to hold it already (it starts fastest there). */
  cachedOn: z.array(z.string()),
  note: z.string(),
  /** Where the tag was found. */
  seen: z.string(),
});
export type WellKnownImage = z.infer<typeof WellKnownImage>;

export const WELL_KNOWN_IMAGES: readonly WellKnownImage[] = z
  .array(WellKnownImage)
  .parse(data.images);

/** The one sentence on speed every list of images carries. */
export const CACHED_IMAGES_START_FASTEST =
  "An image the host already holds starts in about a minute; a fresh pull takes 10–60 minutes on Vast.ai (its docs). A marketplace's own images are the likeliest to be cached on its hosts.";

/** What an image's registry said about it (`images.inspect`). */
export const ImageInfo = z.object({
  image: z.string(),
  /** Compressed bytes a host without it pulls (linux/amd64), null when not known. */
  sizeBytes: z.number().nullable(),
  /** "3.2 GB compressed (docker.io)" or "size unknown (why)": never a guess. */
  sizeText: z.string(),
  /** `linux/amd64`, … as the registry lists them; empty when not known. */
  platforms: z.array(z.string()),
  /** The user it runs as ('root' when none is set), null when not known. */
  user: z.string().nullable(),
  /** Why it cannot run a Tender node on any host (no shell, not Linux), or null. */
  problem: z.string().nullable(),
});
export type ImageInfo = z.infer<typeof ImageInfo>;
