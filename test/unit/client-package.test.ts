/**
 * The package as an application gets it: importing `brook` (and `brook/protocol`) loads
 * none of the native codec packages, which load only when a batch of their codec is met;
 * the npm tarball carries LICENSE and states the Node versions it supports.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CompressionType, encodeRecordBatch } from '../../src/protocol/index.js';
import { projectRoot } from '../support/brook.js';

const run = promisify(execFile);
const NATIVE = ['zstd-napi', 'lz4-napi', 'snappy'];

/** Runs in a fresh process (the project root's package, imported by its name): which native codec packages are loaded after each step. */
const CHILD = `
import { createRequire } from 'node:module';
const loaded = () => Object.keys(createRequire(import.meta.url).cache)
  .flatMap((path) => ${JSON.stringify(NATIVE)}.filter((name) => path.includes('/node_modules/' + name + '/')))
  .filter((name, i, all) => all.indexOf(name) === i).sort();
const steps = {};
const brook = await import('brook');
steps.root = loaded();
steps.rootHasConsumer = typeof brook.Consumer === 'function';
const protocol = await import('brook/protocol');
steps.protocol = loaded();
const batch = protocol.decodeRecordBatch(Buffer.from(process.argv[1], 'hex'));
steps.values = batch.records.map((r) => Buffer.from(r.value).toString('utf8'));
steps.afterZstd = loaded();
process.stdout.write(JSON.stringify(steps));
`;

test('importing brook loads no native codec; decoding a zstd batch loads zstd-napi alone, and the batch decodes', { timeout: 30_000 }, async () => {
  const values = ['first', 'second', 'x'.repeat(1000)];
  const batch = encodeRecordBatch({ compression: CompressionType.Zstd, records: values.map((v) => ({ value: Buffer.from(v) })) });
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD, batch.toString('hex')], { cwd: projectRoot });
  const steps = JSON.parse(stdout) as Record<string, unknown>;
  assert.deepEqual(steps, { root: [], rootHasConsumer: true, protocol: [], values, afterZstd: ['zstd-napi'] });
});

test('package.json states the supported Node versions, and the npm tarball carries LICENSE (Apache-2.0) and no tests', { timeout: 60_000 }, async () => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { license: string; engines: { node: string } };
  assert.equal(pkg.license, 'Apache-2.0');
  // Node 22 and 24, the maintained LTS lines, and later; 20, past its end of life, which CI still runs (README).
  assert.equal(pkg.engines.node, '20 || 22 || >=24');
  const major = Number(process.versions.node.split('.')[0]);
  assert.ok(major === 20 || major === 22 || major >= 24, `the Node running the tests (${process.version}) is one engines states`);
  assert.match(readFileSync(join(projectRoot, 'LICENSE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004/);
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: projectRoot });
  const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
  const files = packed!.files.map((f) => f.path);
  assert.ok(files.includes('LICENSE'), 'LICENSE is in the tarball');
  assert.ok(files.includes('dist/src/index.js') && files.includes('dist/src/protocol/index.js'));
  assert.deepEqual(files.filter((f) => f.startsWith('dist/test/') || f.startsWith('test/')), []);
});
