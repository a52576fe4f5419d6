/**
 * `bin/brook produce` against a spawned `bin/brook broker`: stdin lines with and without a
 * key separator, acks, the missing-separator error, a large streamed input; records read
 * back over Fetch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, spawnBrook, tempDir } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { readBack } from '../support/producer/read-back.js';

const BIN = join(projectRoot, 'bin', 'brook');

function produce(bootstrap: string, args: string[], input: string): ReturnType<typeof runProcess> {
  return runProcess(process.execPath, [BIN, 'produce', ...args, '-b', bootstrap], { input, timeoutMs: 60_000 });
}

test('brook produce: lines without and with --key-separator, each acks setting, read back over Fetch; summary on stderr', { timeout: 90_000 }, async (t) => {
  const dir = tempDir();
  const broker = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  t.after(async () => {
    await broker.stop();
    dir.remove();
  });

  const plain = await produce(broker.bootstrap, ['plain'], 'one\ntwo\n\nthree with spaces\n');
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, /Produced 4 records to plain in [\d.]+ s \(\d+ records\/s\)/);
  assert.deepEqual((await readBack(broker.bootstrap, 'plain', 1)).map((r) => [r.key, r.value]), [
    [null, 'one'], [null, 'two'], [null, ''], [null, 'three with spaces'],
  ]);

  for (const acks of ['all', '1', '0']) {
    const topic = `keyed-${acks}`;
    const result = await produce(broker.bootstrap, [topic, '--key-separator', '::', '--acks', acks], 'k1::v1\nk2::v::2\n::empty key\n');
    assert.equal(result.code, 0, result.stderr);
    // acks=0: the broker appends after the client has gone, so read until the three are there,
    // however long the broker takes (the test's timeout is the bound), not for at most 2.5 s.
    let records = await readBack(broker.bootstrap, topic, 1);
    while (records.length < 3) {
      await new Promise((r) => setTimeout(r, 50));
      records = await readBack(broker.bootstrap, topic, 1);
    }
    assert.deepEqual(records.map((r) => [r.key, r.value]), [['k1', 'v1'], ['k2', 'v::2'], ['', 'empty key']], `acks=${acks}`);
  }
});

test('brook produce: a line without the key separator is an error (one line, exit 1); the lines before it are delivered', { timeout: 60_000 }, async (t) => {
  const dir = tempDir();
  const broker = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  t.after(async () => {
    await broker.stop();
    dir.remove();
  });
  const result = await produce(broker.bootstrap, ['sep', '--key-separator', ':'], 'a:1\nb:2\nno separator here\nc:3\n');
  assert.equal(result.code, 1);
  assert.equal(result.stderr.trim(), "brook produce: No key separator found on line number 3: 'no separator here'");
  assert.deepEqual((await readBack(broker.bootstrap, 'sep', 1)).map((r) => [r.key, r.value]), [['a', '1'], ['b', '2']]);
});

test('brook produce: 200,000 lines streamed with gzip, all delivered in order; bad options exit 2', { timeout: 120_000 }, async (t) => {
  const dir = tempDir();
  const broker = await spawnBrook(['--port', '0', '--data-dir', dir.path]);
  t.after(async () => {
    await broker.stop();
    dir.remove();
  });
  const n = 200_000;
  const input = Array.from({ length: n }, (_, i) => `line-${i}`).join('\n') + '\n';
  const result = await produce(broker.bootstrap, ['big', '--compression', 'gzip', '--linger-ms', '10', '--batch-size', '65536'], input);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, new RegExp(`Produced ${n} records`));
  const records = await readBack(broker.bootstrap, 'big', 1);
  assert.equal(records.length, n);
  for (let i = 0; i < n; i++) if (records[i]!.value !== `line-${i}`) assert.fail(`record ${i} is ${records[i]!.value}`);

  const badAcks = await produce(broker.bootstrap, ['x', '--acks', '2'], 'v\n');
  assert.equal(badAcks.code, 2);
  assert.match(badAcks.stderr, /acks/);
  const noTopic = await produce(broker.bootstrap, [], '');
  assert.equal(noTopic.code, 2);
  const help = await runProcess(process.execPath, [BIN, 'produce', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--key-separator/);
});
