import type { PulledOutputs } from '../outputs/pull';
import { formatCount } from '../workspace/human-units';
import type { PushPlan, PushProgress } from '../workspace/push';
import type { SyncResult } from '../workspace/sync';

/** Progress lines during a push come at most this often: readable, not a flood. */
export const PROGRESS_NOTE_MS = 1_000;

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** The line that opens a workspace push. */
export function pushStartNote(plan: PushPlan): string {
  const total = plan.files.reduce((n, f) => n + f.size, 0);
  return `pushing workspace: ${plan.files.length} files, ${mb(total)}`;
}

export function pushProgressNote(p: PushProgress): string {
  return p.stage === 'hashing'
    ? `hashing workspace: ${p.files}/${p.totalFiles} files`
    : `pushing workspace: ${p.files}/${p.totalFiles} files, ${mb(p.bytes)} of ${mb(p.totalBytes)}`;
}

export function pushResultNote(res: SyncResult): string {
  const what =
    res.mode === 'full'
      ? `workspace ready: ${res.filesSent} files, ${mb(res.bytesSent)}`
      : `workspace: ${formatCount(res.filesSent)} changed, ${formatCount(res.deleted)} deleted, ` +
        `${formatCount(res.unchanged)} unchanged (${mb(res.bytesSent)} sent)`;
  return what + linkNote(res);
}

/** How the bytes went, where a push says (compression-plan.ts, link-meter.ts). */
function linkNote(res: SyncResult): string {
  const parts: string[] = [];
  if (res.tarBytes !== undefined) parts.push(`compressed to ${mb(res.streamBytes)}`);
  if (res.link?.isLinkBound === true) parts.push(`link ${mb(res.link.bytesPerS)}/s`);
  if (res.link?.isLinkBound === false) {
    parts.push(`${mb(res.link.bytesPerS)}/s, this machine the limit, not the link`);
  }
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}

export function outputsNote(pulled: PulledOutputs): string {
  return (
    `outputs: ${pulled.files.length} files, ${pulled.bytes} bytes in ${pulled.dir}` +
    (pulled.kept > 0 ? ` (${pulled.kept} unchanged since the last pull, not sent again)` : '') +
    (pulled.missing.length ? `; missing: ${pulled.missing.join(', ')}` : '')
  );
}
