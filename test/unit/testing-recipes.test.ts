/**
 * docs/TESTING.md's recipes for the broker's test controls are complete node:test files: each
 * code block that starts with `// recipe: NAME` is written out as it stands and run with
 * `node --test`, importing Brook by its package name (the checkout's own package), so a
 * recipe that no longer works fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/brook.js';

const RECIPE = /```js\n\/\/ recipe: ([\w.-]+\.test\.mjs)\n([\s\S]*?)```/g;

function recipes(): { name: string; code: string }[] {
  const doc = readFileSync(join(projectRoot, 'docs', 'TESTING.md'), 'utf8');
  return [...doc.matchAll(RECIPE)].map((m) => ({ name: m[1]!, code: m[2]! }));
}

test('every recipe of docs/TESTING.md runs and passes', { timeout: 120_000 }, async () => {
  const found = recipes();
  assert.deepEqual(found.map((r) => r.name), ['hooks.test.mjs', 'fault-error.test.mjs', 'fault-delay-drop.test.mjs', 'manual-clock.test.mjs', 'group-controls.test.mjs', 'inspect.test.mjs',
    'moved-coordinator.test.mjs', 'offline-partition.test.mjs', 'pause.test.mjs', 'snapshot.test.mjs']);
  // Inside the package, so that `import ... from 'brook'` resolves to this checkout (package self-reference).
  const dir = join(projectRoot, 'dist', 'test', 'recipes');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = found.map((r) => {
    const file = join(dir, r.name);
    writeFileSync(file, r.code);
    return file;
  });
  // A test runner of its own: the child must not think it runs inside this one.
  const env = { ...process.env };
  delete env['NODE_TEST_CONTEXT'];
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    execFile(process.execPath, ['--test', '--test-reporter=tap', ...files], { cwd: projectRoot, env, timeout: 110_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (err as { code?: number }).code ?? null, output: `${stdout}\n${stderr}` });
    });
  });
  assert.equal(code, 0, output);
  assert.match(output, new RegExp(`^# pass ${found.length}$`, 'm'), output);
  assert.match(output, /^# fail 0$/m, output);
});
