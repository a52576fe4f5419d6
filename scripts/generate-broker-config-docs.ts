/**
 * Rewrites docs/CLI.md's broker settings sections from the broker config table
 * (scripts/broker-config-docs.ts). `npm run generate:docs`; with `--check`, exits 1 when the
 * file is not current instead of writing it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderBrokerConfigDocs } from './broker-config-docs.js';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'CLI.md');
const text = readFileSync(file, 'utf8');
const rendered = renderBrokerConfigDocs(text);
if (process.argv.includes('--check')) {
  if (rendered !== text) {
    console.error('docs/CLI.md is not current: run npm run generate:docs');
    process.exit(1);
  }
} else if (rendered !== text) {
  writeFileSync(file, rendered);
  console.log('docs/CLI.md: broker settings sections rewritten');
}
