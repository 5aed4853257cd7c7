// `serve-workspace --dir D`: `recv-workspace` and `workspace-manifest` as a session, so an
// app that pushes often (live sync) pays for no process start and
// no SSH exec per push. stdin carries frames (src-agent/wire/frames.ts): a request is a JSON
// frame, for `recv` followed by the tar stream as frames and an empty frame. stdout: the
// marker, then one JSON line per request, in order (docs/agent-protocol.md). `prepare`
// makes the checks a delta starts with ahead of it, while the app scans its own side.
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { FrameReader } from '../wire/frames';
import { STREAM_MARKER } from '../wire/marker';
import { commandError } from '../output';
import { nodePaths, type NodePaths } from '../wire/paths';
import type {
  CommandError,
  RecvDeclinedOutput,
  RecvWorkspaceOutput,
  ServeRequest,
} from '../wire/protocol';
import { finishPendingApply, listWorkspace, type PreparedWorkspace } from './delta-apply';
import { readNodeManifest } from './node-manifest';
import { receiveWorkspace } from './recv-workspace';
import { workspaceManifestOf } from './workspace-manifest';

/** How long a `prepare` stays good for the push that follows it. */
const PREPARED_FOR_MS = 5_000;

export async function runServeWorkspace(dir: string): Promise<number> {
  const paths = nodePaths(dir);
  await write(STREAM_MARKER);
  const frames = new FrameReader(process.stdin);
  let prepared: { at: number; workspace: PreparedWorkspace } | undefined;
  for (;;) {
    const head = await frames.next();
    if (head === null) return 0;
    const ahead = prepared && Date.now() - prepared.at < PREPARED_FOR_MS ? prepared : undefined;
    prepared = undefined; // good for the very next request only
    let req: Partial<Extract<ServeRequest, { op: 'recv' }>> | Partial<ServeRequest>;
    try {
      req = JSON.parse(head.toString('utf8')) as typeof req;
    } catch {
      await reply(commandError('bad_request', 'a request frame that is not JSON'));
      return 2; // out of step with the app: nothing after this can be trusted
    }
    if (req.op === 'manifest') {
      await reply({ manifest: workspaceManifestOf(paths) });
    } else if (req.op === 'prepare') {
      prepared = { at: Date.now(), workspace: prepareWorkspace(paths) };
      await reply({});
    } else if (req.op === 'recv') {
      const answer = await serveRecv(paths, frames, {
        isInPlace: req.inPlace === true,
        isSealed: req.sealed === true,
        prepared: ahead?.workspace,
        encoding: typeof req.encoding === 'string' ? req.encoding : undefined,
      });
      if (answer === null) return 0; // the app went away mid-request
      await reply(answer);
    } else {
      await reply(commandError('bad_request', `unknown op ${JSON.stringify(req.op)}`));
    }
  }
}

/** Feeds the request's frames to `receiveWorkspace`; once that has answered (a refusal
 *  can come early) the rest of the request is read and dropped, to stay in step. */
async function serveRecv(
  paths: NodePaths,
  frames: FrameReader,
  opts: {
    isInPlace: boolean;
    isSealed: boolean;
    prepared: PreparedWorkspace | undefined;
    encoding: string | undefined;
  },
): Promise<RecvWorkspaceOutput | RecvDeclinedOutput | CommandError | null> {
  const input = new PassThrough({ highWaterMark: 1 << 20 });
  let isSettled = false;
  const result = receiveWorkspace(paths, input, opts).finally(() => {
    isSettled = true;
  });
  for (;;) {
    const data = await frames.next();
    if (data === null) {
      input.destroy();
      await result;
      return null;
    }
    if (data.length === 0) break;
    if (isSettled || input.destroyed) continue;
    if (!input.write(data)) {
      await Promise.race([once(input, 'drain'), result]).catch(() => {
        /* the receiver stopped reading: its answer says why */
      });
    }
  }
  input.end();
  return result;
}

/**
 * The checks a delta starts with, made while the app scans its side: the manifest checked
 * against every file, and the folders listed. A file changed between this and the push is
 * written into the manifest with the signature seen here, so the next push finds it
 * changed and sends it again; nothing else runs in the workspace during a push (a job
 * running there is pushed to in place, which checks at the push itself).
 */
function prepareWorkspace(paths: NodePaths): PreparedWorkspace {
  try {
    finishPendingApply(paths);
  } catch {
    // recv-workspace tries again and reports it
  }
  return { manifest: readNodeManifest(paths), listing: listWorkspace(paths.workspace) };
}

function reply(value: object): Promise<void> {
  return write(`${JSON.stringify(value)}\n`);
}

function write(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}
