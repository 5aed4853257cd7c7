// One `recv-workspace` exec: the caller writes a tar, the agent answers once it has swapped
// the result in (or refused it, leaving the node's workspace as it was). A compressed push
// passes the tar through a `PushEncoder` and tells the agent so (`TENDER_PUSH_ENCODING`).
import { pipeline } from 'node:stream/promises';
import type {
  CommandError,
  RecvDeclinedOutput,
  RecvWorkspaceOutput,
  WorkspaceManifest,
} from '../../../src-agent/wire/protocol';
import {
  filesOf,
  manifestDigest,
  type ManifestFiles,
  stringsOf,
} from '../../../src-agent/wire/workspace-manifest';
import { PUSH_ENCODING, PUSH_ENCODING_ENV } from '../../../src-agent/wire/push-encoding';
import { createTarWriter, type TarWriter } from '../../../src-agent/wire/tar';
import { TenderError } from '../../base/tender-error';
import { agentCommand, type AgentAddress } from '../../nodes/node-layout';
import { parseAfterMarker } from '../../transport/exec-helpers';
import { packetized } from './packetize';
import { type LinkMeasure, LinkMeter, metered } from './link-meter';
import type { Precompressor } from './precompress';
import { PushEncoder } from './push-encoder';
import type { NodeShell } from '../../transport/node-shell';

/** The agent refused the stream; `nodeCode` is its error code (`stale_base`, `ENOSPC`, …). */
export class WorkspaceRefusedError extends TenderError {
  constructor(
    readonly nodeCode: string,
    readonly nodeMessage: string,
    readonly path?: string,
  ) {
    super(
      'infrastructure',
      `the node refused the workspace: ${nodeMessage}${path ? ` (${path})` : ''}`,
    );
  }
}

/** A local file changed between hashing and sending; starting over will pick it up. */
export class LocalChangeError extends Error {
  override readonly name = 'LocalChangeError';
}

export interface RecvAnswer {
  output: RecvWorkspaceOutput;
  /** Bytes written to the node: the tar (headers and padding included), or what it was
   *  compressed to. */
  streamBytes: number;
  /** A compressed push: the tar's own bytes, and its segments worth trying by the quality
   *  they were sent at (`raw`: as they were). */
  tarBytes?: number;
  segments?: Record<string, number>;
  /** What the link did, measured as the push went (link-meter.ts). */
  link?: LinkMeasure;
}

/** Fills a push's tar; `encoder` is there when the push is compressed, to be told which
 *  bytes not to try (`PushEncoder.mark`). */
export type TarFill = (tar: TarWriter, encoder: PushEncoder | undefined) => Promise<void>;

/** What a node holds: its manifest, as `workspace-manifest` prints it, with its digest. */
export interface NodeManifest {
  files: ManifestFiles;
  dirs: string[];
  digest: string;
}

/** The `recv-workspace` / `workspace-manifest` pair, over one session instead of an exec
 *  each (sync-session.ts). */
export interface RecvVia {
  recv(
    write: TarFill,
    isInPlace: boolean,
    isSealed?: boolean,
    isEncoded?: boolean,
    ahead?: Precompressor,
  ): Promise<RecvAnswer>;
  manifest(): Promise<NodeManifest | null>;
}

/** The node declined a full push offered with `--unless-manifest`. `has_workspace`: it
 *  holds one already, whose manifest is `manifest` (null if unreadable): diff against it.
 *  `old_agent`: its agent predates the offer (a run started by an older Tender): ask it
 *  for its manifest as before. */
export class FullPushDeclined extends Error {
  override readonly name = 'FullPushDeclined';
  constructor(
    readonly reason: 'has_workspace' | 'old_agent',
    readonly manifest: NodeManifest | null = null,
  ) {
    super(`the node declined the full push (${reason})`);
  }
}

export interface RecvOptions {
  /** Into the live workspace of a running job (`--in-place`), never a swap. */
  isInPlace?: boolean;
  /** Over this session instead of an exec of its own. */
  via?: RecvVia;
  /** A sealed full push (`--sealed`). */
  isSealed?: boolean;
  /** `--unless-manifest` (not over a session): see `FullPushDeclined`. */
  isUnlessManifest?: boolean;
  /** Compressed (push-encoder.ts): only to an agent that decodes it (push-compression.ts). */
  isEncoded?: boolean;
  /** Large files compressed ahead while raw bytes drain (precompress.ts). */
  ahead?: Precompressor;
}

/** Runs `recv-workspace` (or a request of `via`), lets `write` fill the tar (finished
 *  here), returns the answer. */
export async function sendToRecv(
  shell: NodeShell,
  address: AgentAddress,
  write: TarFill,
  opts: RecvOptions = {},
): Promise<RecvAnswer> {
  const isInPlace = opts.isInPlace === true;
  const isEncoded = opts.isEncoded === true;
  if (opts.via) {
    return opts.via.recv(write, isInPlace, opts.isSealed === true, isEncoded, opts.ahead);
  }
  const env = isEncoded ? `${PUSH_ENCODING_ENV}=${PUSH_ENCODING} ` : '';
  const command = env + agentCommand(address, 'recv-workspace');
  const flags = [
    isInPlace ? ' --in-place' : '',
    opts.isSealed === true ? ' --sealed' : '',
    opts.isUnlessManifest === true ? ' --unless-manifest' : '',
  ].join('');
  const ch = shell.exec(`${command}${flags}`);
  const out: Buffer[] = [];
  let stderr = '';
  ch.stdout.on('data', (c: Buffer) => out.push(c));
  ch.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));

  const tar = createTarWriter();
  const encoder = isEncoded ? new PushEncoder(opts.ahead) : undefined;
  let streamBytes = 0;
  const meter = new LinkMeter();
  const counted = (src: AsyncIterable<Buffer>) => metered(src, meter, (n) => (streamBytes = n));
  const writing = (async () => {
    await write(tar, encoder);
    await tar.finish();
  })();
  // Whole SSH packets: see packetize.ts.
  const packets = (src: AsyncIterable<Buffer>) => packetized(src);
  const sending = (
    encoder
      ? pipeline(tar, encoder, packets, counted, ch.stdin)
      : pipeline(tar, packets, counted, ch.stdin)
  ).catch(() => {
    /* the remote side closed early; its exit status and output say why */
  });
  // Once the agent has exited (it refused the stream) nothing more can arrive: stop writing
  // rather than wait on a channel that may neither drain nor fail.
  void ch.exit.then(() => {
    if (!tar.destroyed && !tar.readableEnded) tar.destroy(new Error('the node stopped reading'));
  });
  const [wrote] = await Promise.allSettled([writing, sending]);
  if (wrote.status === 'rejected') {
    // Without the end-of-archive block the agent applies nothing.
    tar.destroy();
    ch.close();
  }
  const status = await ch.exit;
  const link = meter.measure(performance.now());
  const result = parseAfterMarker<RecvWorkspaceOutput | RecvDeclinedOutput | CommandError>(
    Buffer.concat(out).toString('utf8'),
  );
  // It read nothing: what was written meanwhile went nowhere.
  if (result && 'declined' in result) {
    throw new FullPushDeclined('has_workspace', nodeManifestOf(result.manifest));
  }
  if (opts.isUnlessManifest === true && status.code === 2 && /unless-manifest/.test(stderr)) {
    throw new FullPushDeclined('old_agent');
  }
  const failure = wrote.status === 'rejected' ? (wrote.reason as Error) : undefined;
  if (failure || (result && 'error' in result)) answerOf(result, failure); // throws
  if (isInPlace && status.code === 2 && /--in-place/.test(stderr)) {
    throw new TenderError(
      'conflict',
      "the node's agent is older than live workspace sync (recv-workspace --in-place)",
      'Start the run again with this version of Tender to sync into it while it runs.',
    );
  }
  if (status.code !== 0 || !result) {
    throw new TenderError(
      'infrastructure',
      `workspace push failed (exit ${status.code ?? status.signal}): ${stderr.trim().split('\n').pop() ?? ''}`,
    );
  }
  return {
    output: answerOf(result, undefined),
    streamBytes,
    tarBytes: encoder?.totals.tarBytes,
    segments: encoder?.totals.tried,
    link,
  };
}

/** The agent's answer to a push, or the error it stands for. `failure`: why writing the
 *  tar stopped, if it did (a local file changed: start over). */
export function answerOf(
  result: RecvWorkspaceOutput | CommandError | null,
  failure: Error | undefined,
): RecvWorkspaceOutput {
  if (failure instanceof LocalChangeError) throw failure;
  if (result && 'error' in result) {
    throw new WorkspaceRefusedError(result.error.code, result.error.message, result.error.path);
  }
  if (failure) {
    throw new TenderError(
      'bad_input',
      `reading the workspace failed: ${failure.message}`,
      'A file changed or vanished while it was being pushed; run again.',
    );
  }
  if (!result) throw new TenderError('infrastructure', 'the node gave no answer to the push');
  return result;
}

/** A manifest as the agent prints it, checked; null when it is not one. */
export function nodeManifestOf(m: WorkspaceManifest | null): NodeManifest | null {
  if (!m || m.version !== 1) return null;
  try {
    const files = filesOf(m.files, 'node manifest');
    const dirs = stringsOf(m.dirs, 'node manifest dirs');
    return { files, dirs, digest: manifestDigest(files, dirs) };
  } catch {
    return null;
  }
}
