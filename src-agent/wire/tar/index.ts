// The tar codec's public API (the app imports it for workspace pushes and output pulls).
export { createTarReader, type TarEntry, type TarEntryHandler } from './reader';
export {
  createTarWriter,
  type TarDirectoryOptions,
  type TarFileOptions,
  type TarWriter,
} from './writer';
export type { TarEntryType, TarHeader } from './header';
