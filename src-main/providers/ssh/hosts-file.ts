import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, stringify, TomlError } from 'smol-toml';
import { z } from 'zod';
import { HostInput } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { mkdirPrivate } from '../../base/private-files';

/** A machine you already have (hosts.toml). */
export interface HostEntry {
  name: string;
  host: string;
  port: number;
  user: string;
  /** A private key path (`~` expanded); Tender's own key when absent. */
  identityFile: string | null;
}

const FileSchema = z
  .object({
    host: z
      .array(
        z
          .object({
            name: z.string(),
            host: z.string(),
            port: z.number().int().default(22),
            user: z.string(),
            identity_file: z.string().optional(),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

export function hostsPath(home: string): string {
  return join(home, 'hosts.toml');
}

/** Reads `<home>/hosts.toml`; an absent file is no hosts. A broken file is an error that
 *  names the line, never silently ignored. */
export function readHosts(home: string): HostEntry[] {
  const path = hostsPath(home);
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
      'Fix the file or use `tender hosts add|remove`.',
    );
  }
  return parsed.data.host.map((h) => {
    const valid = HostInput.safeParse({
      name: h.name,
      host: h.host,
      port: h.port,
      user: h.user,
      identityFile: h.identity_file,
    });
    if (!valid.success)
      throw new TenderError(
        'bad_input',
        `${path}: host "${h.name}": ${valid.error.issues[0]!.message}`,
      );
    return {
      name: h.name,
      host: h.host,
      port: h.port,
      user: h.user,
      identityFile: h.identity_file ?? null,
    };
  });
}

export function writeHosts(home: string, hosts: HostEntry[]): void {
  const path = hostsPath(home);
  mkdirPrivate(dirname(path));
  const doc = {
    host: hosts.map((h) => ({
      name: h.name,
      host: h.host,
      port: h.port,
      user: h.user,
      ...(h.identityFile ? { identity_file: h.identityFile } : {}),
    })),
  };
  const text = `# Machines you already have, for the ssh provider. Edit, or use \`tender hosts\`.\n\n${stringify(doc)}\n`;
  writeFileSync(`${path}.tmp`, text, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

export function findHost(home: string, name: string): HostEntry {
  const hosts = readHosts(home);
  const h = hosts.find((x) => x.name === name);
  if (!h) {
    throw new TenderError(
      'bad_input',
      `unknown host "${name}"`,
      hosts.length
        ? `hosts in ${hostsPath(home)}: ${hosts.map((x) => x.name).join(', ')}`
        : 'add one with `tender hosts add <name> user@host[:port]`',
    );
  }
  return h;
}

export function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}
