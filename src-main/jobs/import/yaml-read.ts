import { loadAll, YAMLException } from 'js-yaml';
import { BadInputError } from '../../base/bad-input-error';

/**
 * Every document in a YAML file (a SkyPilot pipeline has several). Empty documents are left
 * out. Invalid YAML is bad input placed at js-yaml's mark, counted from 1.
 */
export function readYamlDocuments(text: string, file: string): unknown[] {
  try {
    return loadAll(text, null, { filename: file }).filter((d) => d !== null && d !== undefined);
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    const pos = err.mark ? { line: err.mark.line + 1, column: err.mark.column + 1 } : undefined;
    throw BadInputError.at(file, pos, `invalid YAML: ${err.reason}`);
  }
}
