import { describe, expect, it } from 'vitest';
import { DroppableShell } from './forwards.test-util';
import { KeptShell } from './kept-shell';

describe('KeptShell', () => {
  it('connects once for many callers, again after a drop or a failure told', async () => {
    const made: DroppableShell[] = [];
    const kept = new KeptShell(async () => {
      const s = new DroppableShell(`s${made.length}`);
      made.push(s);
      return s;
    });
    const [a, b] = await Promise.all([kept.get(), kept.get()]);
    expect(a).toBe(b);
    expect(made).toHaveLength(1);

    await made[0]!.drop(); // the connection went: the next caller gets a new one
    await made[0]!.closed;
    const c = await kept.get();
    expect(c).not.toBe(a);

    // A caller that failed on `c` gets a fresh one; a second caller telling of `c` late
    // gets that fresh one too, not a third.
    const d = await kept.get(c);
    expect(d).not.toBe(c);
    expect(await kept.get(c)).toBe(d);
    expect(made).toHaveLength(3);

    await kept.close();
    await expect(kept.get()).rejects.toThrow('closed');
  });

  it('tries again after a failed connect', async () => {
    let calls = 0;
    const kept = new KeptShell(async () => {
      if (++calls === 1) throw new Error('refused');
      return new DroppableShell('ok');
    });
    await expect(kept.get()).rejects.toThrow('refused');
    expect((await kept.get()).description).toBe('fake:ok');
    await kept.close();
  });

  it('closes a shell that arrives after close', async () => {
    let release!: () => void;
    const shell = new DroppableShell('late');
    const kept = new KeptShell(() => new Promise((r) => (release = () => r(shell))));
    const pending = kept.get();
    await Promise.resolve();
    const closing = kept.close();
    release();
    await closing;
    await expect(pending).rejects.toThrow('closed');
    expect(await shell.closed).toBe('dropped by the test');
  });
});
