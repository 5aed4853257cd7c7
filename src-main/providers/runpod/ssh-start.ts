// The start command Tender gives every pod (`dockerArgs`, the container's command): RunPod's
// own images start sshd from $PUBLIC_KEY, but any other image brings no sshd or never
// starts it, and RunPod cannot run a container as another user than the image's (no
// `--user` override: runpod-python#399). So the command, as whatever user the image runs:
//   - puts $PUBLIC_KEY in that user's authorized_keys (and root's, when it can sudo);
//   - installs openssh-server when sshd is missing and it is root or can sudo (apt-get,
//     apk, dnf, microdnf or yum: SkyPilot's RunPod start does the same with apt);
//   - starts sshd on port 22: as root, the system one; as a user without sudo, its own
//     sshd with its own host key, which can log in only that user (Docker lets a
//     container's user bind port 22 since 20.10: ip_unprivileged_port_start=0);
//   - then stays up, as the container's main process must.
// It needs only /bin/sh, id and the image's package manager; never curl or Python. Lines
// starting `tender:` say what it did in the pod's log (RunPod's console shows it).

const SCRIPT = [
  'u=$(id -un 2>/dev/null || id -u)',
  'if [ "$(id -u)" = 0 ]; then s=; elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then s="sudo -n"; else s=no; fi',
  'PATH="$PATH:/usr/sbin:/sbin"; export PATH',
  'mkdir -p "$HOME/.ssh" && chmod 700 "$HOME/.ssh"',
  'printf "%s\\n" "$PUBLIC_KEY" >> "$HOME/.ssh/authorized_keys"; chmod 600 "$HOME/.ssh/authorized_keys"',
  'if [ "$s" = "sudo -n" ]; then printf "%s\\n" "$PUBLIC_KEY" | $s sh -c "mkdir -p ~root/.ssh && chmod 700 ~root/.ssh && cat >> ~root/.ssh/authorized_keys && chmod 600 ~root/.ssh/authorized_keys"; fi',
  'if ! command -v sshd >/dev/null 2>&1 && [ "$s" != no ]; then',
  '  echo "tender: the image has no sshd: installing openssh-server"',
  '  if command -v apt-get >/dev/null 2>&1; then $s env DEBIAN_FRONTEND=noninteractive apt-get update -qq && $s env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server',
  '  elif command -v apk >/dev/null 2>&1; then $s apk add --no-cache openssh-server',
  '  elif command -v dnf >/dev/null 2>&1; then $s dnf install -y openssh-server',
  '  elif command -v microdnf >/dev/null 2>&1; then $s microdnf install -y openssh-server',
  '  elif command -v yum >/dev/null 2>&1; then $s yum install -y openssh-server',
  '  else echo "tender: no package manager to install openssh-server with" >&2; fi',
  'fi',
  'd=$(command -v sshd)',
  'if [ -z "$d" ]; then echo "tender: cannot start sshd: the image has none, and $u cannot install it (not root, no sudo)" >&2',
  'elif [ "$s" != no ]; then',
  '  $s mkdir -p /run/sshd; $s chmod 755 /run/sshd; $s ssh-keygen -A >/dev/null 2>&1',
  '  $s "$d" && echo "tender: sshd started ($u)"',
  'else',
  '  c="$HOME/.tender-sshd"; mkdir -p "$c" && chmod 700 "$c"',
  '  [ -f "$c/host_ed25519" ] || ssh-keygen -q -t ed25519 -N "" -f "$c/host_ed25519"',
  '  printf "%s\\n" "Port 22" "HostKey $c/host_ed25519" "PidFile $c/sshd.pid" "AuthorizedKeysFile $HOME/.ssh/authorized_keys" "UsePAM no" "StrictModes no" "PasswordAuthentication no" "Subsystem sftp internal-sftp" > "$c/sshd_config"',
  '  "$d" -f "$c/sshd_config" && echo "tender: sshd started as $u (only $u can log in)"',
  'fi',
  // busybox's sleep may not know `infinity`: then it fails at once and the loop holds.
  'sleep infinity 2>/dev/null; while :; do sleep 3600; done',
].join('\n');

/** The pod's `dockerArgs`: `sh -c '<script>'` (RunPod splits it as a shell would; the
 *  script has no single quote, so it travels as one word). */
export function sshStartCommand(): string {
  if (SCRIPT.includes("'")) throw new Error('ssh-start: the script must not hold a single quote');
  return `sh -c '${SCRIPT}'`;
}
