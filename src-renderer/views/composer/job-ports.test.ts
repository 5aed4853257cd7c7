import { describe, expect, it } from 'vitest';
import { JobSpec } from '../../../src-main/contract';
import { formatPortsField, parsePortsField } from './job-ports';

describe('parsePortsField', () => {
  it('reads node ports and node:local pairs, comma-separated, as job.ports', () => {
    expect(parsePortsField('')).toEqual({ ports: [], problem: null });
    expect(parsePortsField(' , ')).toEqual({ ports: [], problem: null });
    expect(parsePortsField('6006, 8888:18888')).toEqual({
      ports: [6006, '8888:18888'],
      problem: null,
    });
    expect(parsePortsField(' 1 ,65535: 2 ,')).toEqual({ ports: [1, '65535:2'], problem: null });
    // What the job file loader takes.
    expect(JobSpec.parse({ name: 'j', run: 'x', ports: [6006, '8888:18888'] }).ports).toEqual([
      6006,
      '8888:18888',
    ]);
  });

  it.each([
    ['0', /"0": the node port "0" is not a port from 1 to 65535/],
    ['65536', /is not a port from 1 to 65535/],
    ['6006, abc', /"abc": the node port "abc" is not a port/],
    ['6006:', /write NODE_PORT or NODE_PORT:LOCAL_PORT/],
    ['1:2:3', /write NODE_PORT or NODE_PORT:LOCAL_PORT/],
    ['6006:70000', /the local port "70000" is not a port/],
    ['6006:0', /^"6006:0": the local port "0" is not a port from 1 to 65535 \(leave it out/],
    ['6006 6007', /is not a port/],
    ['6006, 6006:16006', /node port 6006 is forwarded twice/],
    ['6006:7000, 8000:7000', /local port 7000 is taken twice/],
  ])('%s is refused, saying why', (text, why) => {
    expect(parsePortsField(text).problem).toMatch(why);
  });
});

describe('formatPortsField', () => {
  it('writes job.ports as the field reads them back', () => {
    const ports = [6006, '8888:18888'];
    expect(formatPortsField(ports)).toBe('6006, 8888:18888');
    expect(parsePortsField(formatPortsField(ports)).ports).toEqual(ports);
    expect(formatPortsField([])).toBe('');
  });
});
