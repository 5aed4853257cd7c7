import { describe, expect, it } from 'vitest';
import { SrunShell, srunCommand } from './srun-shell';

describe('srun shell', () => {
  it('runs each command inside the allocation, quoted once', () => {
    expect(srunCommand('4242', 'echo \'hi\' && cat > "$HOME"/x')).toBe(
      `srun --jobid='4242' --overlap -N1 -n1 --quiet --kill-on-bad-exit=0 bash -c 'echo '\\''hi'\\'' && cat > "$HOME"/x'`,
    );
    const seen: string[] = [];
    const shell = new SrunShell(
      {
        description: 'ada@login:22',
        exec: (c) => {
          seen.push(c);
          return {} as never;
        },
        close: async () => {},
      },
      '7',
    );
    shell.exec('true');
    expect(seen).toEqual([srunCommand('7', 'true')]);
    expect(shell.description).toBe('slurm job 7 via ada@login:22');
    expect((shell as { openSocket?: unknown }).openSocket).toBeUndefined();
  });
});
