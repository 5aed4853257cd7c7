import { describe, expect, it } from 'vitest';
import { ProviderError } from '../provider';
import { slurmError, type SlurmErrorKind, slurmWords } from './slurm-error';

// sbatch's refusals as the test cluster printed them (Slurm 22.05.8; `locked` has
// AllowAccounts and EnforcePartLimits=ALL; `gpu` has MaxTime=60; two nodes of 2 CPUs, no
// gres; the controller stopped with `scontrol shutdown slurmctld`: sbatch, squeue and
// scancel each gave up after ~9 s). The QOS refusal needs an accounting database the test cluster lacks: its text is
// ESLURM_INVALID_QOS's from this build's libslurmfull.so, printed the way sbatch prints the
// others.
const REFUSALS: [what: string, code: number, stderr: string, kind: SlurmErrorKind][] = [
  [
    'an unknown partition',
    1,
    'sbatch: error: invalid partition specified: nope\nsbatch: error: Batch job submission failed: Invalid partition name specified\n',
    'bad_partition',
  ],
  [
    'an account the partition does not allow',
    1,
    'sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified\n',
    'bad_account',
  ],
  [
    'a QOS (from the build)',
    1,
    'sbatch: error: Batch job submission failed: Invalid qos specification\n',
    'bad_qos',
  ],
  [
    'a time limit over MaxTime',
    1,
    'sbatch: error: Batch job submission failed: Requested time limit is invalid (missing or exceeds some limit)\n',
    'refused',
  ],
  [
    'more nodes than the partition has',
    1,
    'sbatch: error: Batch job submission failed: Node count specification invalid\n',
    'refused',
  ],
  [
    'more CPUs than a node has',
    1,
    'sbatch: error: Batch job submission failed: More processors requested than permitted\n',
    'refused',
  ],
  [
    'GPUs on a cluster without gres',
    1,
    'sbatch: error: Invalid generic resource (gres) specification\n',
    'refused',
  ],
  ['a bad --time', 255, 'sbatch: error: Invalid --time specification\n', 'refused'],
  [
    'a script without #!',
    1,
    'sbatch: error: This does not look like a batch script.  The first\nsbatch: error: line must start with #! followed by the path to an interpreter.\nsbatch: error: For instance: #!/bin/sh\n',
    'refused',
  ],
  ['no sbatch on PATH', 127, 'bash: line 1: sbatch: command not found\n', 'no_sbatch'],
  [
    '--clusters without a database',
    1,
    'sbatch: error: Problem talking to database\nsbatch: error: There is a problem talking to the database: Resource temporarily unavailable.  Only local cluster communication is available, remove --cluster from your command line or contact your admin to resolve the problem.\n',
    'other',
  ],
  [
    'SLURM_CONF pointing nowhere (after 60 s of retries)',
    1,
    'sbatch: error: s_p_parse_file: cannot stat file /nonexistent: No such file or directory, retrying in 1sec up to 60sec\nsbatch: error: ClusterName needs to be specified\nsbatch: fatal: Unable to process configuration file\n',
    'other',
  ],
  [
    'the controller down',
    1,
    'sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)\n',
    'other',
  ],
  ['nothing said', 1, '', 'other'],
];

describe('slurmError', () => {
  it.each(REFUSALS)('%s', (_, code, stderr, kind) => {
    const err = slurmError(
      { code, stdout: '', stderr },
      { command: 'sbatch', where: 'me@login:22' },
    );
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.kind).toBe(kind);
    expect(err.opts.fatal).toBe(kind !== 'other');
    expect(err.opts.hint).toBeTruthy();
    expect(err.message).not.toMatch(/sbatch: error:/);
  });

  it('names what was asked for, and the fix', () => {
    const [, code, stderr] = REFUSALS[0]!;
    const part = slurmError({ code, stdout: '', stderr }, { command: 'sbatch' });
    expect(part.message).toBe(
      'the cluster has no partition "nope" (Slurm: invalid partition specified: nope Batch job submission failed: Invalid partition name specified)',
    );
    expect(part.opts.hint).toMatch(/sinfo -s/);

    const acct = slurmError(
      { code: 1, stdout: '', stderr: REFUSALS[1]![2] },
      { command: 'sbatch', partition: 'locked', account: 'lab' },
    );
    expect(acct.message).toMatch(/^Slurm refused the account "lab" on partition "locked"/);
    expect(acct.opts.hint).toMatch(/sacctmgr show assoc/);

    const qos = slurmError(
      { code: 1, stdout: '', stderr: REFUSALS[2]![2] },
      { command: 'sbatch', qos: 'high' },
    );
    expect(qos.message).toMatch(/^Slurm refused the QOS "high"/);

    const none = slurmError(
      { code: 127, stdout: '', stderr: REFUSALS[9]![2] },
      { command: 'sbatch', where: 'me@login:22' },
    );
    expect(none.message).toBe(
      'sbatch is not on the PATH of a non-interactive ssh session on me@login:22',
    );
    expect(none.opts.hint).toMatch(/module/);

    const conf = slurmError(
      { code: 1, stdout: '', stderr: REFUSALS[11]![2] },
      { command: 'squeue' },
    );
    expect(conf.message).toMatch(/^squeue failed: /);
    expect(conf.opts.hint).toMatch(/SLURM_CONF/);
  });

  it("scancel's refusals: another user's job; the controller down", () => {
    const denied = slurmError(
      {
        code: 210,
        stdout: '',
        stderr: 'scancel: error: Kill job error on job id 1: Access/permission denied\n',
      },
      { command: 'scancel' },
    );
    expect(denied).toMatchObject({ kind: 'refused', opts: { fatal: true } });
    expect(denied.said).toBe('Kill job error on job id 1: Access/permission denied');
    const down = slurmError(
      {
        code: 8,
        stdout: '',
        stderr:
          'scancel: error: Kill job error on job id 5: Unable to contact slurm controller (connect failure)\n',
      },
      { command: 'scancel' },
    );
    expect(down).toMatchObject({ kind: 'other', opts: { fatal: false } });
    const squeue = slurmError(
      {
        code: 1,
        stdout: '',
        stderr: 'slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n',
      },
      { command: 'squeue' },
    );
    expect(squeue.message).toBe(
      'squeue failed: Unable to contact slurm controller (connect failure)',
    );
  });

  it('a 127 that is not the command itself is not "no sbatch"', () => {
    const err = slurmError(
      { code: 127, stdout: '', stderr: 'bash: module: command not found\n' },
      { command: 'sbatch' },
    );
    expect(err.kind).toBe('other');
  });
});

describe('slurmWords', () => {
  it.each([
    ['sbatch: error: Invalid --time specification\n', 'Invalid --time specification'],
    ['slurm_load_jobs error: Invalid job id specified\n', 'Invalid job id specified'],
    ['sbatch: fatal: Unable to process configuration file', 'Unable to process configuration file'],
    ['  two\n\n lines  \n', 'two lines'],
  ])('%j', (text, words) => {
    expect(slurmWords(text)).toBe(words);
  });
});
