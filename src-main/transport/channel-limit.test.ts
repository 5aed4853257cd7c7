import { describe, expect, it } from 'vitest';
import { ChannelLimit } from './channel-limit';

const settled = async <T>(p: Promise<T>): Promise<T | 'pending'> =>
  Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 10))]);

describe('ChannelLimit', () => {
  it('grants up to the cap at once, then one per release, first come first served', async () => {
    const limit = new ChannelLimit(2);
    const [a, b, c, d] = [limit.take(), limit.take(), limit.take(), limit.take()];
    expect(await a.ready).toBe(true);
    expect(await b.ready).toBe(true);
    expect(await settled(c.ready)).toBe('pending');
    a.release();
    a.release(); // idempotent: frees one slot, not two
    expect(await c.ready).toBe(true);
    expect(await settled(d.ready)).toBe('pending');
    expect(limit.open).toBe(2);
  });

  it('lets a waiter leave the queue without taking a slot', async () => {
    const limit = new ChannelLimit(1);
    const a = limit.take();
    const b = limit.take();
    const c = limit.take();
    b.release();
    expect(await b.ready).toBe(false);
    a.release();
    expect(await c.ready).toBe(true);
    expect(limit.open).toBe(1);
  });

  it('tells every waiter, and every later taker, no once shut', async () => {
    const limit = new ChannelLimit(1);
    limit.take();
    const waiting = limit.take();
    limit.shut();
    expect(await waiting.ready).toBe(false);
    expect(await limit.take().ready).toBe(false);
  });
});
