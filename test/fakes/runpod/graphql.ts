// Just enough GraphQL for the fake: a document's operation, its fields with their arguments
// and selection sets, arguments read from `variables`, and answers cut to what was selected —
// a field the schema does not have is the error a real server gives, so a client asking for
// something RunPod would refuse is caught here too. No fragments, no directives.

export interface Field {
  name: string;
  alias: string | null;
  /** The raw text between the parentheses, or null without arguments. */
  args: string | null;
  selection: Field[] | null;
}

export interface Operation {
  kind: 'query' | 'mutation';
  fields: Field[];
}

/** A GraphQL error: answered HTTP 200 with `{"errors":[…]}`, as RunPod does. */
export class GraphqlError extends Error {
  constructor(
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

export function parseOperation(query: string): Operation {
  const p = new Parser(query);
  p.skip();
  let kind: Operation['kind'] = 'query';
  if (p.peek() !== '{') {
    const word = p.name();
    if (word !== 'query' && word !== 'mutation')
      throw new GraphqlError(`Syntax Error: Unexpected Name "${word}".`, 'GRAPHQL_PARSE_FAILED');
    kind = word;
    p.skip();
    if (p.peek() !== '{' && p.peek() !== '(') p.name();
    p.skip();
    if (p.peek() === '(') p.balanced('(', ')');
  }
  const fields = p.selection();
  p.skip();
  if (!p.done())
    throw new GraphqlError('Syntax Error: one operation per request', 'GRAPHQL_PARSE_FAILED');
  return { kind, fields };
}

/** The arguments of a field, each `name: $variable` (the fake reads values from variables only:
 *  Tender never writes a value into a document). */
export function argsOf(field: Field, variables: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!field.args) return out;
  for (const part of field.args
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z_]\w*)\s*:\s*\$([A-Za-z_]\w*)$/.exec(part);
    if (!m)
      throw new GraphqlError(
        `the fake reads arguments from variables only ("${part}" in ${field.name})`,
        'GRAPHQL_VALIDATION_FAILED',
      );
    out[m[1]!] = variables[m[2]!];
  }
  return out;
}

/** A resolved value: plain data, or a function of the field's arguments. */
export type Resolvable = unknown;

/** `value` cut to `selection`; object fields may be functions of their arguments. */
export function project(
  value: Resolvable,
  selection: Field[] | null,
  typeName: string,
  variables: Record<string, unknown>,
): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => project(v, selection, typeName, variables));
  if (selection === null) {
    if (typeof value === 'object' && !Array.isArray(value))
      throw new GraphqlError(
        `Field of type "${typeName}" must have a selection of subfields.`,
        'GRAPHQL_VALIDATION_FAILED',
      );
    return value;
  }
  if (typeof value !== 'object')
    throw new GraphqlError(
      `Field of type "${typeName}" must not have a selection`,
      'GRAPHQL_VALIDATION_FAILED',
    );
  const obj = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of selection) {
    if (f.name === '__typename') {
      out[f.alias ?? f.name] = typeName;
      continue;
    }
    if (!(f.name in obj))
      throw new GraphqlError(
        `Cannot query field "${f.name}" on type "${typeName}".`,
        'GRAPHQL_VALIDATION_FAILED',
      );
    const raw = obj[f.name];
    const v =
      typeof raw === 'function'
        ? (raw as (a: Record<string, unknown>) => unknown)(argsOf(f, variables))
        : raw;
    out[f.alias ?? f.name] = project(v, f.selection, typeNameOf(typeName, f.name), variables);
  }
  return out;
}

/** Type names for error messages, as RunPod's schema names them. */
function typeNameOf(parent: string, field: string): string {
  const known: Record<string, string> = {
    pods: 'Pod',
    runtime: 'PodRuntime',
    ports: 'PodRuntimePorts',
    machine: 'PodMachineInfo',
    gpus: 'PodRuntimeGpus',
    container: 'PodRuntimeContainer',
    lowestPrice: 'LowestPrice',
  };
  return known[field] ?? `${parent}.${field}`;
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i >= this.s.length;
  }

  peek(): string {
    return this.s[this.i] ?? '';
  }

  skip(): void {
    for (;;) {
      const c = this.peek();
      if (c === '#') {
        while (!this.done() && this.peek() !== '\n') this.i++;
      } else if (c !== '' && /[\s,]/.test(c)) this.i++;
      else return;
    }
  }

  name(): string {
    this.skip();
    const m = /^[A-Za-z_]\w*/.exec(this.s.slice(this.i));
    if (!m)
      throw new GraphqlError(
        `Syntax Error: Expected Name, found "${this.peek() || '<EOF>'}".`,
        'GRAPHQL_PARSE_FAILED',
      );
    this.i += m[0].length;
    return m[0];
  }

  /** The text between balanced `open` … `close` (strings respected). */
  balanced(open: string, close: string): string {
    const start = ++this.i;
    let depth = 1;
    while (!this.done()) {
      const c = this.s[this.i++]!;
      if (c === '"') {
        while (!this.done() && this.s[this.i] !== '"') this.i += this.s[this.i] === '\\' ? 2 : 1;
        this.i++;
      } else if (c === open) depth++;
      else if (c === close && --depth === 0) return this.s.slice(start, this.i - 1);
    }
    throw new GraphqlError(
      `Syntax Error: Expected "${close}", found <EOF>.`,
      'GRAPHQL_PARSE_FAILED',
    );
  }

  selection(): Field[] {
    this.skip();
    if (this.peek() !== '{')
      throw new GraphqlError(
        `Syntax Error: Expected "{", found "${this.peek() || '<EOF>'}".`,
        'GRAPHQL_PARSE_FAILED',
      );
    this.i++;
    const fields: Field[] = [];
    for (;;) {
      this.skip();
      if (this.peek() === '}') {
        this.i++;
        return fields;
      }
      if (this.s.startsWith('...', this.i))
        throw new GraphqlError('the fake takes no fragments', 'GRAPHQL_VALIDATION_FAILED');
      let name = this.name();
      let alias: string | null = null;
      this.skip();
      if (this.peek() === ':') {
        this.i++;
        alias = name;
        name = this.name();
        this.skip();
      }
      let args: string | null = null;
      if (this.peek() === '(') {
        args = this.balanced('(', ')');
        this.skip();
      }
      const selection = this.peek() === '{' ? this.selection() : null;
      fields.push({ name, alias, args, selection });
    }
  }
}
