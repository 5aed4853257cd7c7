// tender-agent: `node tender-agent.cjs <command> …` (docs/agent-protocol.md).
import { UsageError, allowOnly, parseArgs, requireFlag } from './args';
import { runAttach } from './commands/attach';
import { runPackOutputs } from './commands/pack-outputs';
import { runRecvWorkspace } from './commands/recv-workspace';
import { runStart } from './commands/start';
import { runServeWorkspace } from './commands/serve-workspace';
import { runWorkspaceManifest } from './commands/workspace-manifest';
import { runDaemon } from './daemon/daemon';
import { printResult } from './output';
import { PROTOCOL_VERSION, type VersionOutput } from './wire/protocol';
import { AGENT_VERSION } from './version';
import { decodeHostDeclaration, decodeHostSetupOptions } from './wire/host-declaration';

const USAGE = `usage: tender-agent <command>
  version
  daemon --dir D [--agent-id ID] [--host-decl B64] [--host-setup B64]
  start  --dir D [--agent-id ID] [--host-decl B64] [--host-setup B64] [--holder]
  attach --dir D
  recv-workspace --dir D [--in-place] [--sealed] [--unless-manifest]
  workspace-manifest --dir D
  serve-workspace --dir D
  pack-outputs --dir D --spec B64 [--have-stdin]
`;

async function main(argv: string[]): Promise<number> {
  // Everything the agent writes under ~/.tender (and the processes it starts) is the
  // user's alone: folders 0700, files 0600 (docs/agent-protocol.md).
  process.umask(0o077);
  const args = parseArgs(argv, ['in-place', 'sealed', 'unless-manifest', 'have-stdin', 'holder']);
  const daemonFlags = (extra: string[] = []) => {
    allowOnly(args, ['dir', 'agent-id', 'host-decl', 'host-setup', ...extra]);
    const decl = args.flags.get('host-decl');
    const setup = args.flags.get('host-setup');
    return {
      dir: requireFlag(args, 'dir'),
      agentId: args.flags.get('agent-id'),
      hostDeclaration: decl === undefined ? undefined : decodeHostDeclaration(decl),
      hostSetup: setup === undefined ? undefined : decodeHostSetupOptions(setup),
    };
  };
  switch (args.command) {
    case 'version': {
      const out: VersionOutput = { version: AGENT_VERSION, protocol: PROTOCOL_VERSION };
      await printResult(out);
      return 0;
    }
    case 'daemon':
      return runDaemon(daemonFlags());
    case 'start':
      return runStart(daemonFlags(['holder']), args.flags.has('holder'));
    case 'attach':
      allowOnly(args, ['dir']);
      return runAttach(requireFlag(args, 'dir'));
    case 'recv-workspace':
      allowOnly(args, ['dir', 'in-place', 'sealed', 'unless-manifest']);
      return runRecvWorkspace(requireFlag(args, 'dir'), {
        isInPlace: args.flags.has('in-place'),
        isSealed: args.flags.has('sealed'),
        isUnlessManifest: args.flags.has('unless-manifest'),
      });
    case 'serve-workspace':
      allowOnly(args, ['dir']);
      return runServeWorkspace(requireFlag(args, 'dir'));
    case 'workspace-manifest':
      allowOnly(args, ['dir']);
      return runWorkspaceManifest(requireFlag(args, 'dir'));
    case 'pack-outputs':
      allowOnly(args, ['dir', 'spec', 'have-stdin']);
      return runPackOutputs(requireFlag(args, 'dir'), requireFlag(args, 'spec'), {
        haveOnStdin: args.flags.has('have-stdin'),
      });
    default:
      throw new UsageError(
        args.command ? `unknown command ${JSON.stringify(args.command)}` : 'no command',
      );
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(
      err instanceof UsageError
        ? `tender-agent: ${err.message}\n${USAGE}`
        : `tender-agent: ${err.stack ?? err.message}\n`,
    );
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
