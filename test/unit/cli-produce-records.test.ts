/**
 * `brook produce` beyond plain lines: --header, --partition, --tombstone, --input-format
 * json (headers as an object, pairs or {"key","value"} entries; null values; hex values),
 * a bad JSON line, and `consume --format json | produce --input-format json` copying a
 * topic. What was produced is read back with KafkaJS's own fetch and record decoding.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, startBrook } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { KafkaJsReader, createTopicWithKafkaJs, kafkaJs } from '../support/clients/kafkajs.js';

const BIN = join(projectRoot, 'bin', 'brook');

let broker: Awaited<ReturnType<typeof startBrook>>;
let reader: KafkaJsReader;

before(async () => {
  broker = await startBrook();
  reader = await KafkaJsReader.connect(kafkaJs(broker.bootstrap));
});

after(async () => {
  await broker.stop();
});

function brook(args: readonly string[], input = '') {
  return runProcess(process.execPath, [BIN, ...args, '-b', broker.bootstrap], { input, timeoutMs: 30_000 });
}

const simplified = (records: Awaited<ReturnType<KafkaJsReader['readAll']>>) =>
  records.map((r) => ({ partition: r.partition, key: r.key, value: r.value, headers: r.headers }));

test('--header (repeatable), --partition and --tombstone: KafkaJS reads the headers, the partition and a null value', async () => {
  await createTopicWithKafkaJs(broker.bootstrap, 'hdr', 3);
  const r = await brook(['produce', 'hdr', '--key-separator', ':', '-H', 'source=cli', '--header', 'expr=a=b', '--partition', '2', '--tombstone'], 'k1:v1\nk2:\nk3:v3\n');
  assert.equal(r.code, 0, r.stderr);
  const headers = { source: 'cli', expr: 'a=b' };
  assert.deepEqual(simplified(await reader.readAll('hdr')), [
    { partition: 2, key: 'k1', value: 'v1', headers },
    { partition: 2, key: 'k2', value: null, headers },
    { partition: 2, key: 'k3', value: 'v3', headers },
  ]);
});

test('--input-format json: key, value (null: a tombstone), headers in each accepted shape, partition; blank lines skipped', async () => {
  await createTopicWithKafkaJs(broker.bootstrap, 'json-in', 2);
  const lines = [
    '{"key":"a","value":"1","headers":{"h":"x"}}',
    '',
    '{"key":"b","value":null,"partition":1,"headers":[["h","y"],["i","z"]]}',
    '{"value":"no key","partition":1,"headers":[{"key":"h","value":"w"}]}',
    '{"key":"c","value":"2","partition":0,"timestamp":1700000000000}',
  ];
  const r = await brook(['produce', 'json-in', '--input-format', 'json', '-H', 'fixed=1'], `${lines.join('\n')}\n`);
  assert.equal(r.code, 0, r.stderr);
  const read = simplified(await reader.readAll('json-in'));
  const byKey = (k: string | null) => read.find((x) => x.key === k);
  assert.deepEqual(byKey('b'), { partition: 1, key: 'b', value: null, headers: { fixed: '1', h: 'y', i: 'z' } });
  assert.deepEqual(byKey(null), { partition: 1, key: null, value: 'no key', headers: { fixed: '1', h: 'w' } });
  assert.deepEqual(byKey('c'), { partition: 0, key: 'c', value: '2', headers: { fixed: '1' } });
  assert.equal(byKey('a')?.value, '1');
  assert.deepEqual(byKey('a')?.headers, { fixed: '1', h: 'x' });
  assert.equal(read.length, 4);
  // The timestamp given is the record's: brook consume's %T prints it.
  const ts = await brook(['consume', 'json-in', '-p', '0', '-o', 'earliest', '-e', '-f', '%k %T\\n']);
  assert.match(ts.stdout, /^c 1700000000000$/m);
});

test('--value-encoding hex in JSON input; a bad line stops the command with its line number (exit 1), records before it delivered', async () => {
  await createTopicWithKafkaJs(broker.bootstrap, 'json-bad', 1);
  const r = await brook(['produce', 'json-bad', '--input-format', 'json', '--value-encoding', 'hex'], '{"value":"68690a"}\n{"value":"6869"\n{"value":"7a"}\n');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^brook produce: line 2: invalid JSON/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.deepEqual((await reader.readAll('json-bad')).map((x) => x.value), ['hi\n']);
});

test('consume --format json | produce --input-format json copies records with their keys, values, headers and partitions', async () => {
  await createTopicWithKafkaJs(broker.bootstrap, 'copy-src', 2);
  await createTopicWithKafkaJs(broker.bootstrap, 'copy-dst', 2);
  const producer = kafkaJs(broker.bootstrap).producer();
  await producer.connect();
  await producer.send({
    topic: 'copy-src',
    messages: [
      { key: 'k1', value: 'v1', partition: 0, headers: { a: '1' } },
      { key: 'k2', value: null, partition: 1 },
      { key: null, value: 'v3', partition: 1, headers: { b: '2', c: '3' } },
    ],
  });
  await producer.disconnect();
  const out = await brook(['consume', 'copy-src', '-o', 'earliest', '-e', '--format', 'json']);
  assert.equal(out.code, 0, out.stderr);
  const copied = await brook(['produce', 'copy-dst', '--input-format', 'json'], out.stdout);
  assert.equal(copied.code, 0, copied.stderr);
  const sort = (list: ReturnType<typeof simplified>) => list.sort((x, y) => `${x.partition}${x.key}`.localeCompare(`${y.partition}${y.key}`));
  assert.deepEqual(sort(simplified(await reader.readAll('copy-dst'))), sort(simplified(await reader.readAll('copy-src'))));
});

test('usage errors exit 2 with one line: --header without =, an unknown --input-format, --key-separator with json', async () => {
  for (const args of [['-H', 'novalue'], ['--input-format', 'xml'], ['--input-format', 'json', '--key-separator', ':'], ['--partition', 'x']]) {
    const r = await brook(['produce', 'hdr', ...args], 'x\n');
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
