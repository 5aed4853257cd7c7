// The floor order of src-main (docs/architecture.md, "Floors"), enforced by lint: a file may
// import its own folder and any folder on a lower floor, never a folder on its own floor or
// above. And src-main reaches the agent only through its public face, src-agent/wire/.
import { dirname, relative, resolve, sep } from 'node:path';

/** Lowest first. Folders on one floor are siblings: neither imports the other. */
export const FLOORS = [
  ['contract'], // the typed contract: schemas and types, no runtime
  ['base'], // errors as data, ids, paths, the event bus
  ['transport', 'datastream'], // shells on nodes; the app-side log store
  ['providers'], // stateless adapters to the clouds and machines that lease nodes
  ['ledger'], // SQLite: what was asked of the providers and what they answered
  ['money'], // costs and the dead-man switch's arithmetic, over ledger rows
  ['nodes'], // the node FSM and its runner, bootstrap, the agent link
  ['jobs'], // the job FSM, the per-node job, workspace push, output pull
  ['services'], // the domain services and their handlers
  ['api'], // the contract's transports: dispatch, in-process client, web server
  ['core'], // the composition root
  ['cli', 'app'], // the programs: the command line, the Electron shell
  ['index.ts'], // the Electron main entry: imports app/
];

const floorOf = new Map(FLOORS.flatMap((names, i) => names.map((n) => [n, i])));

/** The top-level part of src-main a path lies in (a folder, or a file like index.ts). */
function partOf(root, file) {
  const rel = relative(resolve(root, 'src-main'), file);
  if (rel.startsWith('..')) return null;
  return rel.split(sep)[0].replace(/\.ts$/, '') === 'index' ? 'index.ts' : rel.split(sep)[0];
}

/** @type {import('eslint').Rule.RuleModule} */
const floorsRule = {
  meta: {
    type: 'problem',
    docs: { description: 'src-main folders import only downward; the agent only via wire/' },
    schema: [],
  },
  create(context) {
    const root = context.cwd;
    const file = context.filename;
    const from = partOf(root, file);
    if (from === null) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = resolve(dirname(file), spec);
      const agentRel = relative(resolve(root, 'src-agent'), target);
      if (!agentRel.startsWith('..')) {
        if (!(agentRel === 'wire' || agentRel.startsWith(`wire${sep}`)))
          context.report({
            node,
            message: `src-main imports the agent only through src-agent/wire/ (not ${spec}).`,
          });
        return;
      }
      const to = partOf(root, target);
      if (to === null || to === from) return;
      const a = floorOf.get(from);
      const b = floorOf.get(to);
      if (a === undefined || b === undefined) {
        context.report({
          node,
          message: `src-main/${a === undefined ? from : to} has no floor: add it to FLOORS in build/eslint-floors.mjs and docs/architecture.md.`,
        });
      } else if (b >= a) {
        context.report({
          node,
          message: `${from}/ may not import ${to}/: ${b === a ? 'they are siblings on one floor' : `${to} is on a higher floor`} (see "Floors" in docs/architecture.md).`,
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export const floorsPlugin = { rules: { floors: floorsRule } };
