/**
 * The ESLint rule that enforces the layers of docs/ARCHITECTURE.md: `layers/direction`.
 *
 * A source file's layer is the first folder under the rule's `root` (src/client/consumer/x.ts
 * is in `client`). Each relative import, re-export, dynamic import() and import type is
 * resolved against the importing file; when it lands in another layer, that layer must be in
 * the importer's `allowed` list. Files at the root itself (src/index.ts, the package's
 * entry point) may import anything and nothing may import them; a folder under the root
 * that `allowed` does not name is reported, so a new layer cannot go unchecked. Package
 * imports (`node:fs`, `eslint`) are not the rule's business; files outside the root
 * (bench/, test/, scripts/) are not checked.
 *
 * Resolving the path, rather than matching patterns on the import string, catches every
 * spelling of the same module (`../storage/x.js`, `../../src/storage/x.js`).
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** The layer of an absolute path: its first folder under `root`; '' for a file at the root; null outside it. */
function layerOf(root, file) {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0] : '';
}

const direction = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the layers of docs/ARCHITECTURE.md' },
    schema: [{
      type: 'object',
      properties: {
        root: { type: 'string' },
        allowed: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
      },
      required: ['root', 'allowed'],
      additionalProperties: false,
    }],
    messages: {
      against: "'{{from}}' may not import from '{{to}}' (allowed: {{allowed}}; docs/ARCHITECTURE.md, Layers)",
      root: "'{{from}}' may not import the package's entry point (it re-exports every layer)",
      outside: "'{{from}}' may not import from outside {{root}} ({{source}})",
      unknown: "'{{from}}' is not a layer: add it to the layers in eslint.config.js and docs/ARCHITECTURE.md",
    },
  },
  create(context) {
    const { root, allowed } = context.options[0];
    const from = layerOf(root, context.filename);
    if (from === null || from === '') return {};
    if (!Object.hasOwn(allowed, from)) {
      return { Program: (node) => context.report({ node, messageId: 'unknown', data: { from } }) };
    }
    const permitted = allowed[from];
    function check(node) {
      const source = node?.type === 'Literal' ? node.value : null;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = layerOf(root, resolve(dirname(context.filename), source));
      if (to === from) return;
      if (to === null) context.report({ node, messageId: 'outside', data: { from, root: relative(context.cwd, root) || root, source } });
      else if (to === '') context.report({ node, messageId: 'root', data: { from } });
      else if (!permitted.includes(to)) context.report({ node, messageId: 'against', data: { from, to, allowed: permitted.join(', ') || 'nothing' } });
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      // `typeof import('../x.js')` in a type position.
      TSImportType: (node) => check(node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};

export const layersPlugin = { meta: { name: 'brook-layers' }, rules: { direction } };
