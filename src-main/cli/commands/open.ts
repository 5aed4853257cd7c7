import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { TenderError } from '../../base/tender-error';
import { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import { EDITORS, editorArgs, editorUrl, type Editor } from '../../services/ssh-config/editor-url';
import { nodeAccess, runAccess } from '../../services/ssh-config/ssh-access';
import { lookSshConfig, sshConfigPaths } from '../../services/ssh-config/ssh-config-store';
import {
  includeLine,
  installInclude,
  isIncludeInstalled,
  userSshConfigPath,
} from '../../services/ssh-config/ssh-include';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info } from '../output';

export const OPEN_USAGE = 'tender open <runId> [--node N] [--editor code|cursor]';

/** Opens a node's workspace in VS Code or Cursor over Remote-SSH, through the node's entry
 *  in the user's ssh config (without --node: the run's alias, its first node with an
 *  entry): launches the editor when its command is on PATH, else prints the URL to open. */
export async function openCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { node: { type: 'string' }, editor: { type: 'string', default: 'code' } },
  });
  if (positionals.length !== 1)
    throw new TenderError('bad_input', 'expected one run id', `usage: ${OPEN_USAGE}`);
  const editor = values.editor as Editor;
  if (!EDITORS.includes(editor))
    throw new TenderError('bad_input', `unknown editor ${values.editor}`, `usage: ${OPEN_USAGE}`);
  const runId = positionals[0]!;
  const ledger = Ledger.openReader(ctx.home);
  if (!ledger) throw new TenderError('not_found', `no run ${runId}`);
  let nodes: NodeRecord[];
  try {
    nodes = ledger.nodesOfRun(runId);
  } finally {
    ledger.close();
  }
  if (nodes.length === 0) throw new TenderError('not_found', `no run ${runId}`);
  const wanted = values.node === undefined ? null : logicalIdOf(values.node);
  if (wanted !== null && !nodes.some((n) => n.logicalId === wanted))
    throw new TenderError(
      'bad_input',
      `run ${runId} has no node ${values.node}`,
      `nodes: ${nodes.map((n) => n.logicalId).join(', ')}`,
    );
  // Without --node: the run's alias (its first node with an entry), as the app's run view.
  const { config } = lookSshConfig(ctx.home, (h) => Ledger.openReader(h));
  const access =
    wanted === null ? runAccess(config, runId, nodes) : nodeAccess(config, runId, nodes, wanted);
  const { alias, workdir: folder } = access;
  if (!access.hasEntry)
    throw new TenderError(
      'conflict',
      `${wanted ? `${wanted} of ${runId}` : `run ${runId}`} has no ssh entry: ${access.why}`,
      `\`tender ssh ${runId}${wanted ? ` --node ${wanted}` : ''}\` still opens a shell where one can run.`,
    );
  await ensureInstalled(ctx.home);
  const url = folder ? editorUrl(editor, alias, folder) : null;
  const args = folder ? editorArgs(alias, folder) : ['--remote', `ssh-remote+${alias}`];
  if (onPath(editor, ctx.env)) {
    spawn(editor, args, { detached: true, stdio: 'ignore' }).unref();
    info(`opening ${folder ?? 'the node'} on ${alias} in ${editor}`);
  } else {
    info(`\`${editor}\` is not on PATH; open this in the browser or your editor:`);
    process.stdout.write(`${url ?? `${editor} ${args.join(' ')}`}\n`);
  }
  return EXIT.ok;
}

/** The editor reaches the node through the user's ssh config: asks before adding the
 *  Include (or says the command, when nobody can answer). */
async function ensureInstalled(home: string): Promise<void> {
  const ours = sshConfigPaths(home).config;
  const userConfig = userSshConfigPath();
  if (isIncludeInstalled(ours, userConfig)) return;
  const change = `add \`${includeLine(ours)}\` as the first line of ${userConfig}`;
  if (!process.stdin.isTTY)
    throw new TenderError(
      'conflict',
      'your ssh does not read Tender’s node entries yet',
      `Run \`tender ssh-config --install\` to ${change}.`,
    );
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question(`Tender will ${change}. Go ahead? [y/N] `);
  rl.close();
  if (!/^y(es)?$/i.test(answer.trim()))
    throw new TenderError(
      'bad_input',
      'the ssh config was left as it is',
      `\`tender ssh-config --install\` does it later.`,
    );
  installInclude(ours, userConfig);
}

/** `1`, `node-1` or `r-…/node-1`: the node's logical id. */
function logicalIdOf(node: string): string {
  const last = node.replace(/^.*\//, '');
  return last.startsWith('node-') ? last : `node-${last}`;
}

function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}
