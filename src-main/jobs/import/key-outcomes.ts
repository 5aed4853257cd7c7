/**
 * What became of each key of an imported task. Every key the input has gets one: nothing
 * is dropped without a word. A refusal means the task would run differently (or not at
 * all) under Tender; the conversion then writes no job file.
 */
export type Outcome =
  | { path: string; kind: 'mapped'; to: string }
  | { path: string; kind: 'warned'; to?: string; why: string }
  | { path: string; kind: 'refused'; why: string; fix: string };

export class Outcomes {
  readonly list: Outcome[] = [];

  mapped(path: string, to: string): void {
    this.list.push({ path, kind: 'mapped', to });
  }

  /** Kept with a caveat (`to`), or left out because it does not change what runs. */
  warned(path: string, why: string, to?: string): void {
    this.list.push(
      to === undefined ? { path, kind: 'warned', why } : { path, kind: 'warned', to, why },
    );
  }

  refused(path: string, why: string, fix: string): void {
    this.list.push({ path, kind: 'refused', why, fix });
  }

  get refusals(): Extract<Outcome, { kind: 'refused' }>[] {
    return this.list.filter(
      (o): o is Extract<Outcome, { kind: 'refused' }> => o.kind === 'refused',
    );
  }

  get warnings(): Extract<Outcome, { kind: 'warned' }>[] {
    return this.list.filter((o): o is Extract<Outcome, { kind: 'warned' }> => o.kind === 'warned');
  }
}

/** `resources.any_of[1].accelerators`, `envs.HF_TOKEN`: a key path as the input names it. */
export function keyPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const part = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
  return parent === '' ? part : `${parent}.${part}`;
}
