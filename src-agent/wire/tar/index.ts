// The tar codec's public API (the app imports it for workspace pushes and output pulls).
// Hand-written because the agent is Node standard library only (one bundled file, no
// dependencies), and so that one codec serves both ends: the agent's recv-workspace and
// pack-outputs and the app's push and pull share it, with stream back-pressure both ways
// (the writer waits for its reader; the reader waits for each entry's consumer).
export { createTarReader, type TarEntry, type TarEntryHandler } from './reader';
export {
  createTarWriter,
  type TarDirectoryOptions,
  type TarFileOptions,
  type TarWriter,
} from './writer';
export type { TarEntryType, TarHeader } from './header';
