// `<home>/clusters.toml`: the Slurm clusters Tender submits to (contract/cluster.ts), as
// `tender clusters add` writes them. A broken file is an error naming its line, never
// silently ignored.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify, TomlError } from 'smol-toml';
import { z } from 'zod';
import { ClusterInput } from '../../contract/cluster';
import { TenderError } from '../../base/tender-error';
import { mkdirPrivate } from '../../base/private-files';

export interface ClusterEntry {
  name: string;
  host: string;
  port: number;
  user: string;
  identityFile: string | null;
  partition: string | null;
  account: string | null;
  qos: string | null;
  gpuHourUsd: number | null;
}

const FileSchema = z
  .object({
    cluster: z
      .array(
        z
          .object({
            name: z.string(),
            host: z.string(),
            port: z.number().int().default(22),
            user: z.string(),
            identity_file: z.string().optional(),
            partition: z.string().optional(),
            account: z.string().optional(),
            qos: z.string().optional(),
            gpu_hour_usd: z.number().optional(),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

export function clustersPath(home: string): string {
  return join(home, 'clusters.toml');
}

export function readClusters(home: string): ClusterEntry[] {
  const path = clustersPath(home);
  if (!existsSync(path)) return [];
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    const where = err instanceof TomlError ? `:${err.line}:${err.column}` : '';
    throw new TenderError('bad_input', `${path}${where}: ${(err as Error).message.split('\n')[0]}`);
  }
  const parsed = FileSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TenderError(
      'bad_input',
      `${path}: ${issue.path.join('.')}: ${issue.message}`,
      'Fix the file or use `tender clusters add|remove`.',
    );
  }
  return parsed.data.cluster.map((c) => {
    const valid = ClusterInput.safeParse({
      name: c.name,
      host: c.host,
      port: c.port,
      user: c.user,
      identityFile: c.identity_file,
      partition: c.partition,
      account: c.account,
      qos: c.qos,
      gpuHourUsd: c.gpu_hour_usd,
    });
    if (!valid.success) {
      const issue = valid.error.issues[0]!;
      throw new TenderError(
        'bad_input',
        `${path}: cluster "${c.name}": ${issue.path.join('.')}: ${issue.message}`,
      );
    }
    return {
      name: c.name,
      host: c.host,
      port: c.port,
      user: c.user,
      identityFile: c.identity_file ?? null,
      partition: c.partition ?? null,
      account: c.account ?? null,
      qos: c.qos ?? null,
      gpuHourUsd: c.gpu_hour_usd ?? null,
    };
  });
}

export function writeClusters(home: string, clusters: ClusterEntry[]): void {
  const path = clustersPath(home);
  mkdirPrivate(dirname(path));
  const doc = {
    cluster: clusters.map((c) => ({
      name: c.name,
      host: c.host,
      port: c.port,
      user: c.user,
      ...(c.identityFile ? { identity_file: c.identityFile } : {}),
      ...(c.partition ? { partition: c.partition } : {}),
      ...(c.account ? { account: c.account } : {}),
      ...(c.qos ? { qos: c.qos } : {}),
      ...(c.gpuHourUsd !== null ? { gpu_hour_usd: c.gpuHourUsd } : {}),
    })),
  };
  const text = `# Slurm clusters Tender submits to. Edit, or use \`tender clusters\`.\n\n${stringify(doc)}\n`;
  writeFileSync(`${path}.tmp`, text, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

export function findCluster(home: string, name: string): ClusterEntry {
  const clusters = readClusters(home);
  const c = clusters.find((x) => x.name === name);
  if (!c)
    throw new TenderError(
      'bad_input',
      `unknown cluster "${name}"`,
      clusters.length
        ? `clusters in ${clustersPath(home)}: ${clusters.map((x) => x.name).join(', ')}`
        : 'add one with `tender clusters add <name> user@login-host[:port]`',
    );
  return c;
}

/** The pin scope of a cluster's login node (like `host:<name>` for your own machines). */
export function clusterKeyScope(name: string): string {
  return `cluster:${name}`;
}
