import { existsSync, rmSync } from 'node:fs';
import { normalize } from 'node:path';
import type { OutputsGlance, PhaseState } from '../../../src-agent/wire/protocol';
import { mkdirPrivate } from '../../base/private-files';
import { within } from '../../base/within';
import type { JobLink } from '../node-job/job-link';
import { landingPath } from './landing-path';
import type { PulledOutputs } from './pull';
import { readPullIndex, writePullIndex } from './pull-index';

/** The agent answers a glance on the control link within this, or the pull goes as usual. */
export const GLANCE_TIMEOUT_MS = 3_000;

/** The final collection of an output set that holds no file: asked of the agent on the
 *  control link (`outputs.glance`), its folders made here, and no `pack-outputs` process
 *  started on the node. The landing folder ends as a full pull would leave it (the same
 *  folders, an empty pull index). Null — pull as usual — when the set holds a file, an
 *  earlier pull brought files (the pull settles what is gone), there are too many folders
 *  to name, or the agent cannot say (an older one, a link that is not up). */
export async function collectEmptyOutputs(
  link: Pick<JobLink, 'request'>,
  outputs: string[],
  destDir: string,
  /** A glance asked already (`glanceAhead`), taken instead of asking again. */
  asked?: Promise<OutputsGlance | null> | null,
): Promise<PulledOutputs | null> {
  if (readPullIndex(destDir).size > 0) return null;
  const glance = await (asked ?? glanceWithin(link, outputs, GLANCE_TIMEOUT_MS));
  if (!glance || glance.files > 0 || glance.moreDirs) return null;
  // A glance names folders below the landing folder: one naming the folder itself or a
  // place outside it is no answer an agent sends, so the pull goes as usual.
  const inside = glance.dirs.map((d) => (normalize(d) === '.' ? null : landingPath(destDir, d)));
  if (inside.some((d) => d === null)) return null;
  if (existsSync(destDir)) rmSync(destDir, { recursive: true, force: true });
  mkdirPrivate(destDir);
  for (const dir of inside) mkdirPrivate(dir!);
  writePullIndex(destDir, new Map());
  return {
    dir: destDir,
    files: [],
    missing: [...glance.missing, ...glance.refused],
    bytes: 0,
    kept: 0,
    bytesSent: 0,
  };
}

/** The glance the final collection will make, asked now (the run has exited: its outputs
 *  are what they will be), or null where that collection will not glance (an earlier pull
 *  brought files). */
export function glanceAhead(
  link: Pick<JobLink, 'request'>,
  outputs: string[],
  destDir: string,
  exit?: Pick<PhaseState, 'glance'>,
): Promise<OutputsGlance | null> | null {
  if (readPullIndex(destDir).size > 0) return null;
  // Said with the exit by an agent configured with the outputs: nothing to ask.
  if (exit?.glance) return Promise.resolve(exit.glance);
  return glanceWithin(link, outputs, GLANCE_TIMEOUT_MS);
}

async function glanceWithin(
  link: Pick<JobLink, 'request'>,
  outputs: string[],
  timeoutMs: number,
): Promise<OutputsGlance | null> {
  const asked = link.request('outputs.glance', { paths: outputs }, timeoutMs).catch(() => null);
  return within(asked, timeoutMs);
}
