// Tender's version: defined by the build (`__TENDER_VERSION__`, from package.json); "dev"
// where nothing defined it (tests, a dev run).
declare const __TENDER_VERSION__: string | undefined;

export const TENDER_VERSION: string =
  typeof __TENDER_VERSION__ === 'string' ? __TENDER_VERSION__ : 'dev';
