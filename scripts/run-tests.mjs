#!/usr/bin/env node
// Runs the compiled test files of one suite with Node's own test runner.
// Usage: node scripts/run-tests.mjs unit|interop [extra node --test flags]
import { readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const suite = process.argv[2] ?? 'unit';
const dir = join(root, 'dist', 'test', suite);

function collect(path) {
  if (statSync(path).isDirectory()) return readdirSync(path).sort().flatMap((name) => collect(join(path, name)));
  return path.endsWith('.test.js') ? [path] : [];
}

const files = collect(dir);
if (files.length === 0) {
  console.error(`no test files under ${dir}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', ...process.argv.slice(3), ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
