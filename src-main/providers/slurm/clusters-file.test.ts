import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderError } from '../../base/tender-error';
import {
  clustersPath,
  findCluster,
  readClusters,
  writeClusters,
  type ClusterEntry,
} from './clusters-file';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});
const home = () => {
  const h = mkdtempSync(join(tmpdir(), 'tender-clusters-'));
  homes.push(h);
  return h;
};

const lab: ClusterEntry = {
  name: 'lab',
  host: 'login.lab.edu',
  port: 2222,
  user: 'ada',
  identityFile: '~/.ssh/id_lab',
  partition: 'gpu',
  account: 'ml-group',
  qos: null,
  gpuHourUsd: 0.5,
};
const bare = {
  ...lab,
  name: 'other',
  identityFile: null,
  partition: null,
  account: null,
  gpuHourUsd: null,
};

describe('clusters.toml', () => {
  it('round-trips what `tender clusters add` writes', () => {
    const h = home();
    expect(readClusters(h)).toEqual([]);
    writeClusters(h, [lab, bare]);
    expect(readClusters(h)).toEqual([lab, bare]);
    expect(findCluster(h, 'lab')).toEqual(lab);
  });

  it.each([
    ['[[cluster]]\nname = "x"\nhost = \n', /clusters\.toml:3:\d+: /],
    [
      '[[cluster]]\nname = "x"\nhost = "h"\nuser = "u"\nparttion = "gpu"\n',
      /clusters\.toml: cluster\.0/,
    ],
    [
      '[[cluster]]\nname = "x"\nhost = "h"\nuser = "u"\npartition = "gpu nodes"\n',
      /cluster "x": partition: letters, digits/,
    ],
  ])('names what is wrong in a broken file: %j', (text, message) => {
    const h = home();
    writeFileSync(clustersPath(h), text);
    expect(() => readClusters(h)).toThrow(message);
  });

  it('an unknown cluster names the ones there are, or how to add one', () => {
    const h = home();
    expect(() => findCluster(h, 'lab')).toThrow('unknown cluster "lab"');
    writeClusters(h, [lab]);
    let err: unknown;
    try {
      findCluster(h, 'nope');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TenderError);
    expect((err as TenderError).hint).toContain('lab');
  });
});
