// A pod's container command (`dockerArgs`), run for real when the container starts: as the
// image's user (the node's throw-away user), with the pod's environment, in a mount
// namespace where /usr/sbin holds only what the image has — a stand-in `sshd` when the image
// ships sshd, nothing when it does not. `apt-get install openssh-server` puts the stand-in
// there (as a package install would); `id` answers as the image's user (root for a root
// image), `sudo` exists only when the image grants it. When the command starts sshd, the
// node's real sshd (the fixture) starts listening with the keys the command wrote to
// ~/.ssh/authorized_keys: a command that never starts sshd leaves the pod unreachable, as
// on RunPod. Needs root (unshare, mount, setpriv).
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VastNode } from '../vast/node';
import { userName, type ImageSpec } from '../images/image';

const WATCH_MS = 25;

export class ContainerCommand {
  private readonly dir: string;
  private readonly child: ChildProcess;
  private readonly timer: NodeJS.Timeout;
  private readonly output: string[] = [];
  private isStopped = false;

  constructor(
    private readonly node: VastNode,
    img: ImageSpec,
    command: string,
    env: Record<string, string>,
  ) {
    const { uid, gid } = node.ids;
    this.dir = mkdtempSync(join(tmpdir(), 'tender-pod-cmd-'));
    chmodSync(this.dir, 0o755);
    const bin = join(this.dir, 'bin');
    const sbin = join(this.dir, 'sbin');
    const state = join(this.dir, 'state');
    for (const d of [bin, sbin, state]) mkdirSync(d, { mode: 0o755 });
    chownSync(sbin, uid, gid); // the package manager (the user, here) installs into it
    chownSync(state, uid, gid);
    const sshdShim = `#!/bin/sh\necho "$*" > ${state}/sshd-started\n`;
    writeFileSync(join(this.dir, 'sshd'), sshdShim, { mode: 0o755 });
    if (img.sshd) writeFileSync(join(sbin, 'sshd'), sshdShim, { mode: 0o755 });
    const name = userName(img);
    writeFileSync(
      join(bin, 'id'),
      name === 'root'
        ? '#!/bin/sh\ncase "$1" in -u) echo 0;; -un) echo root;; *) exec /usr/bin/id "$@";; esac\n'
        : `#!/bin/sh\ncase "$1" in -un) echo ${name};; *) exec /usr/bin/id "$@";; esac\n`,
      { mode: 0o755 },
    );
    writeFileSync(
      join(bin, 'apt-get'),
      `#!/bin/sh\ncase "$*" in *install*openssh-server*) cp ${this.dir}/sshd ${sbin}/sshd;; esac\nexit 0\n`,
      { mode: 0o755 },
    );
    // sudo: the image's, or none (a `sudo` elsewhere on this machine is hidden from PATH).
    writeFileSync(
      join(bin, 'sudo'),
      img.sudo ? '#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n' : '#!/bin/sh\nexit 1\n',
      { mode: 0o755 },
    );
    const launcher = join(this.dir, 'launch.sh');
    writeFileSync(
      launcher,
      'mount --bind "$1" /usr/sbin || exit 97\n' +
        'exec setpriv --reuid="$2" --regid="$3" --init-groups sh -c \'eval "$DOCKER_ARGS"\'\n',
      { mode: 0o755 },
    );
    this.child = spawn(
      'unshare',
      ['--mount', '--propagation', 'private', 'sh', launcher, sbin, String(uid), String(gid)],
      {
        cwd: node.home,
        env: {
          ...env,
          HOME: node.home,
          PATH: `${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
          DOCKER_ARGS: command,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const s of [this.child.stdout!, this.child.stderr!])
      s.on('data', (b: Buffer) => this.output.push(...b.toString().split('\n').filter(Boolean)));
    this.child.on('error', (err) => this.output.push(`spawn: ${err.message}`));
    this.timer = setInterval(() => void this.watch(join(state, 'sshd-started')), WATCH_MS);
  }

  /** What the command printed (RunPod shows it as the pod's log). */
  log(): string[] {
    return [...this.output];
  }

  /** The container stopped: the command and what it started end with the node's user. */
  stop(): void {
    this.isStopped = true;
    clearInterval(this.timer);
    this.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async watch(started: string): Promise<void> {
    if (this.isStopped || !existsSync(started)) return;
    clearInterval(this.timer);
    const keysFile = join(this.node.home, '.ssh', 'authorized_keys');
    const keys = existsSync(keysFile) ? readFileSync(keysFile, 'utf8').split('\n') : [];
    this.node.setAuthorizedKeys(keys.filter((k) => k.trim()));
    if (!this.isStopped) await this.node.listen();
  }
}
