/**
 * KafkaJS 2.2.4's own tests of producer, consumer and admin behaviour
 * (test/interop/kafkajs-suite/vendor/, unmodified) run by Jest against brook/kafkajs and
 * Brook's embedded broker (test/interop/kafkajs-suite/harness/run.mjs; README.md there says
 * how, and why each remaining failure fails).
 *
 * The oracle is KafkaJS's own assertions. expected.json lists every test known to pass: one of
 * them failing is a regression and fails this test; tests passing that are not listed are
 * printed (add them with `npm run test:kafkajs-suite -- --update-expected`).
 *
 * Needs npm and the npm registry (or npm's cache) for the harness's lockfile, and openssl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runProcess } from './../support/clients/run.js';
import { projectRoot, tempDir } from '../support/brook.js';
import { lockFixedPorts } from '../support/fixed-ports.js';

interface Summary {
  wallMs: number;
  areas: Record<string, { files: number; tests: number; passed: number; failed: number; skipped: number }>;
  files: Record<string, { area: string; error?: string; tests: { id: string; status: 'passed' | 'failed' | 'skipped'; failure?: string }[] }>;
}

const suiteDir = join(projectRoot, 'test', 'interop', 'kafkajs-suite');

test('KafkaJS 2.2.4\'s own producer, consumer and admin tests: every test expected.json lists passes against brook/kafkajs', { timeout: 900_000 }, async (t) => {
  // KafkaJS's tests name localhost:9092-9100; kafkajs-examples.test.ts takes 9094 too. The
  // machine-wide lock keeps the two apart; the harness moves to free ports by itself when a
  // program outside the tests holds one of them.
  const ports = await lockFixedPorts("KafkaJS's tests expect their cluster on localhost:9092-9100", 480_000);
  t.after(() => ports.release());
  const dir = tempDir('kafkajs-suite-');
  t.after(() => dir.remove());
  const out = join(dir.path, 'summary.json');
  const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const run = await runProcess(process.execPath, [join(suiteDir, 'harness', 'run.mjs'), '--out', out, '--workers', '2'], {
    cwd: projectRoot, timeoutMs: 840_000, env,
  });
  const tail = `${run.stdout.slice(-4000)}\n${run.stderr.slice(-3000)}`;
  assert.equal(run.code, 0, `harness/run.mjs exited ${run.code}${run.timedOut ? ' (timed out)' : ''}\n${tail}`);
  const summary = JSON.parse(readFileSync(out, 'utf8')) as Summary;
  // Pass/fail/skip per area and per file, as harness/run.mjs printed them.
  const report = run.stdout.slice(run.stdout.indexOf('KafkaJS 2.2.4\'s tests on brook/kafkajs'));
  for (const line of report.trimEnd().split('\n')) t.diagnostic(line);

  const status = new Map<string, string>();
  for (const file of Object.values(summary.files)) for (const test of file.tests) status.set(test.id, test.status);
  const expected = JSON.parse(readFileSync(join(suiteDir, 'expected.json'), 'utf8')) as { passing: string[] };
  const regressions = expected.passing.filter((id) => status.get(id) !== 'passed');
  const known = new Set(expected.passing);
  const newlyPassing = [...status].filter(([id, s]) => s === 'passed' && !known.has(id)).map(([id]) => id);
  if (newlyPassing.length > 0) for (const line of ['newly passing (not in expected.json yet):', ...newlyPassing.map((id) => `  ${id}`)]) t.diagnostic(line);

  const why = (id: string): string => {
    const file = summary.files[id.slice(0, id.indexOf(' › '))];
    const test = file?.tests.find((x) => x.id === id);
    return test?.failure ?? file?.error ?? status.get(id) ?? 'not run';
  };
  assert.deepEqual(regressions.map((id) => `${id}\n    ${why(id).split('\n').join('\n    ')}`), [], 'tests of KafkaJS that passed before now fail');
  // The run covered every area: a harness that ran nothing cannot pass.
  for (const area of ['admin', 'producer', 'consumer']) assert.ok((summary.areas[area]?.passed ?? 0) > 0, `no ${area} test passed`);
});
