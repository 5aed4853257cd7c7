// `[sweep]` of a job file → the contract's SweepSpec: every key an axis (a list of values)
// but `cells`, an explicit list of cells (inline tables). Values may be written as strings,
// numbers or booleans; each becomes the text of a TENDER_PARAM_<NAME> variable. Every
// problem names its key, so the message lands on its line:col.
import { MAX_CELLS, PARAM_NAME, cellCount, type SweepSpecInput } from '../../contract/sweep';
import { describeTomlValue, isTable, type Problem } from './job-file-problem';

const NAME_HINT =
  'a name is a letter or _ then letters, digits or _: it becomes TENDER_PARAM_<NAME>';

export function readSweep(table: Record<string, unknown> | undefined): {
  sweep?: SweepSpecInput;
  problems: Problem[];
} {
  if (table === undefined) return { problems: [] };
  const problems: Problem[] = [];
  const axes: Record<string, string[]> = {};
  const cells: Record<string, string>[] = [];
  for (const [name, value] of Object.entries(table)) {
    if (name === 'cells') {
      readCells(value, cells, problems);
      continue;
    }
    const path = ['sweep', name];
    if (!PARAM_NAME.test(name)) {
      problems.push({
        path,
        text: `sweep axis "${name}" is not a valid param name`,
        hint: NAME_HINT,
      });
      continue;
    }
    if (!Array.isArray(value)) {
      problems.push({
        path,
        text: `sweep axis ${name} must be a list of values, not ${describeTomlValue(value)}`,
        hint: `write ${name} = ["a", "b"]`,
      });
      continue;
    }
    if (value.length === 0) {
      problems.push({
        path,
        text: `sweep axis ${name} is empty: a sweep over no values runs nothing`,
        hint: `list at least one value (${name} = ["a"]), or remove the axis`,
      });
      continue;
    }
    const values = value.map((v, i) => scalarText(v, [...path, i], problems));
    const seen = new Set<string>();
    for (const [i, v] of values.entries()) {
      if (v !== null && seen.has(v))
        problems.push({
          path: [...path, i],
          text: `sweep axis ${name} lists "${v}" twice`,
          hint: 'list each value once',
        });
      if (v !== null) seen.add(v);
    }
    axes[name] = values.filter((v): v is string => v !== null);
  }
  if (problems.length === 0 && cellCount({ axes, cells }) === 0)
    problems.push({
      path: ['sweep'],
      text: '[sweep] has no axis and no cells',
      hint: 'add an axis (LR = ["1e-4", "3e-4"]) or remove [sweep]',
    });
  const n = cellCount({ axes, cells });
  if (n > MAX_CELLS)
    problems.push({
      path: ['sweep'],
      text: `[sweep] makes ${n} cells, more than ${MAX_CELLS}`,
      hint: 'split it into several sweeps, or drop an axis',
    });
  return problems.length > 0 ? { problems } : { sweep: { axes, cells }, problems };
}

function readCells(value: unknown, out: Record<string, string>[], problems: Problem[]): void {
  const path = ['sweep', 'cells'];
  if (!Array.isArray(value)) {
    problems.push({
      path,
      text: `sweep.cells must be a list of tables, not ${describeTomlValue(value)}`,
      hint: 'write cells = [{ LR = "1e-3", SEED = "7" }]',
    });
    return;
  }
  for (const [i, cell] of value.entries()) {
    if (!isTable(cell)) {
      problems.push({
        path: [...path, i],
        text: `sweep.cells[${i}] must be a table of values, not ${describeTomlValue(cell)}`,
        hint: 'write cells = [{ LR = "1e-3", SEED = "7" }]',
      });
      continue;
    }
    const values: Record<string, string> = {};
    for (const [name, v] of Object.entries(cell)) {
      if (!PARAM_NAME.test(name)) {
        problems.push({
          path: [...path, i, name],
          text: `"${name}" is not a valid param name`,
          hint: NAME_HINT,
        });
        continue;
      }
      const text = scalarText(v, [...path, i, name], problems);
      if (text !== null) values[name] = text;
    }
    out.push(values);
  }
}

function scalarText(v: unknown, path: (string | number)[], problems: Problem[]): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  problems.push({
    path,
    text: `a sweep value must be a string, number or boolean, not ${describeTomlValue(v)}`,
  });
  return null;
}
