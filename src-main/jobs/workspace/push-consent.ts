// What a push must not do without being told: copy files that look like secrets to a rented
// machine (the same names the app's preview flags: secret-patterns.ts, through the scan),
// or push a folder outside the job file's own (`workdir = ".."`, an absolute path, `~` in an
// imported task), which may hold far more than the job needs.
import path from 'node:path';
import type { SecretWarning } from './scan';

export interface PushChoices {
  /** `[job.workspace] push_secrets = true` or `--push-secrets`. */
  pushSecrets: boolean;
  /** `[job.workspace] workdir_outside = true` or `--workdir-outside`. */
  workdirOutside: boolean;
}

export interface ConsentProblem {
  text: string;
  hint: string;
}

/** Whether `workdir` is `jobDir` or inside it. */
export function isInside(workdir: string, jobDir: string): boolean {
  const rel = path.relative(path.resolve(jobDir), path.resolve(workdir));
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** What was not chosen knowingly, each with its two ways out. Pure. */
export function pushConsentProblems(
  w: { workdir: string; jobDir: string; secrets: readonly SecretWarning[] },
  choices: PushChoices,
): ConsentProblem[] {
  const out: ConsentProblem[] = [];
  if (!choices.workdirOutside && !isInside(w.workdir, w.jobDir))
    out.push({
      text: `the workdir ${w.workdir} is outside the job file's folder ${w.jobDir}: all of it would be pushed to the node`,
      hint: 'move the job file into the folder to push, or say so: workdir_outside = true in [job.workspace], or --workdir-outside',
    });
  if (!choices.pushSecrets && w.secrets.length > 0) {
    const list = w.secrets.map((s) => `${s.path} (matches ${s.pattern})`).join(', ');
    const many = w.secrets.length > 1;
    out.push({
      text: `${many ? `${w.secrets.length} files look` : 'a file looks'} like ${many ? 'secrets' : 'a secret'} and would be pushed to the node: ${list}`,
      hint:
        `leave ${many ? 'them' : 'it'} out (add ${w.secrets.map((s) => `/${s.path}`).join(', ')} to exclude in [job.workspace], or to .gitignore) ` +
        'and pass what the job needs as a secret env variable; or push knowingly: push_secrets = true in [job.workspace], or --push-secrets',
    });
  }
  return out;
}
