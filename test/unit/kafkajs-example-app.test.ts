/**
 * examples/kafkajs/app.mjs, a KafkaJS application, run twice against Brook's broker: as
 * written (the real KafkaJS 2.2.4) and with only its import changed to 'brook/kafkajs'
 * (resolved through package.json `exports`, as an application would). Both runs print the
 * same records (partition, offset, key, value, header) and the same committed offsets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot, startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 90_000 };
const run = promisify(execFile);

test('the KafkaJS example app gives the same output with brook/kafkajs as with KafkaJS', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const source = readFileSync(join(projectRoot, 'examples/kafkajs/app.mjs'), 'utf8');
  const changed = source.replace("from 'kafkajs';", "from 'brook/kafkajs';");
  assert.notEqual(changed, source);
  assert.equal(changed.split('\n').filter((line, i) => line !== source.split('\n')[i]).length, 1, 'exactly one line differs');
  // Next to the original, inside the package: 'brook/kafkajs' resolves by the package's own name.
  const copy = join(projectRoot, 'examples/kafkajs/.app-brook.mjs');
  writeFileSync(copy, changed);
  cleanup.add('remove copy', () => rmSync(copy, { force: true }));
  const outputOf = async (file: string, suffix: string): Promise<unknown> => {
    const { stdout } = await run(process.execPath, [file], {
      cwd: projectRoot, timeout: 60_000,
      env: { ...process.env, BROKERS: broker.bootstrap, TOPIC: `topic-${suffix}`, GROUP: `group-${suffix}`, COUNT: '12' },
    });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { received: { topic: string }[] };
    return { ...out, received: out.received.map(({ topic: _t, ...rest }) => rest) };
  };
  const kafkajs = await outputOf(join(projectRoot, 'examples/kafkajs/app.mjs'), 'kafkajs');
  const brook = await outputOf(copy, 'brook');
  assert.deepEqual(brook, kafkajs);
  assert.equal((kafkajs as { received: unknown[] }).received.length, 12);
});
