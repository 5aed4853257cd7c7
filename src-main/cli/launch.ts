// The `tender` executable: installs the compile cache (compile-cache.ts), then loads the
// command line itself (tender-main.js, built from main.ts beside this file).
import { installCompileCache } from './compile-cache';

const stats = installCompileCache();
if (process.env.TENDER_COMPILE_CACHE_STATS === '1') {
  process.once('exit', () => process.stderr.write(`compile cache: ${JSON.stringify(stats)}\n`));
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded after the cache, on purpose
require('./tender-main.js');
