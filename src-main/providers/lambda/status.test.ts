import { describe, expect, it } from 'vitest';
import { classifyInstance, isEnding, STATUS_TABLE } from './status';

describe('Lambda status table', () => {
  it.each([
    ['booting', null, 'starting'],
    ['booting', '198.51.100.2', 'starting'],
    ['active', '198.51.100.2', 'running'],
    ['active', null, 'starting'], // ip null = not yet
    ['unhealthy', '198.51.100.2', 'failed'],
    ['terminating', '198.51.100.2', 'gone'],
    ['terminated', null, 'gone'],
    ['ACTIVE', '198.51.100.2', 'running'],
    ['something-new', null, 'starting'], // unknown: not final, the deadline bounds it
  ])('%s with ip %s → %s', (status, ip, kind) => {
    expect(classifyInstance({ status, ip }).kind).toBe(kind);
  });

  it('covers every status of the spec', () => {
    expect(Object.keys(STATUS_TABLE).sort()).toEqual(
      ['active', 'booting', 'terminated', 'terminating', 'unhealthy'].sort(),
    );
  });

  it('running carries the ip', () => {
    expect(classifyInstance({ status: 'active', ip: '10.0.0.1' })).toEqual({
      kind: 'running',
      ip: '10.0.0.1',
    });
  });

  it('only terminating and terminated are ending', () => {
    expect(Object.keys(STATUS_TABLE).filter(isEnding).sort()).toEqual([
      'terminated',
      'terminating',
    ]);
  });
});
