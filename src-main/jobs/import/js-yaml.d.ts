// The part of js-yaml v4 that the importer uses (the package ships no types).
declare module 'js-yaml' {
  export interface Mark {
    /** Counted from 0. */
    line: number;
    /** Counted from 0. */
    column: number;
  }
  export class YAMLException extends Error {
    reason: string;
    mark?: Mark;
  }
  export interface LoadOptions {
    filename?: string;
    json?: boolean;
  }
  export function load(text: string, options?: LoadOptions): unknown;
  export function loadAll(text: string, iterator?: null, options?: LoadOptions): unknown[];
}
