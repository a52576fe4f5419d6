/**
 * `brook consume` output options against records KafkaJS produced (keys, headers, a
 * tombstone, binary values): --format templates, --format json with headers, hex and
 * base64 encodings, --partition, --offset N / -N, --exit-at-end; and output through a pipe:
 * a slow reader gets everything, a reader that goes away ends the command with exit 0.
 * Expected values are what KafkaJS sent and the offsets KafkaJS's produce reported.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot, startBrook } from '../support/brook.js';
import { runProcess } from '../support/clients/run.js';
import { baseOffsets, createTopicWithKafkaJs, kafkaJs } from '../support/clients/kafkajs.js';

const BIN = join(projectRoot, 'bin', 'brook');
const TOPIC = 'fmt';
const BIG = 'fmt-big';
const BIG_RECORDS = 3_000;

let broker: Awaited<ReturnType<typeof startBrook>>;
/** Partition 0: keyed records with headers, the fourth a tombstone. */
const keyed = Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: i === 3 ? null : `v${i} ünï`, headers: { h: `x${i}`, n: `${i}` } }));
/** Partition 1: binary values, no key, no headers. */
const binary = Array.from({ length: 3 }, (_, i) => Buffer.from([0xff, 0x00, 0x0a, i]));
let base0 = 0n;
let base1 = 0n;

before(async () => {
  broker = await startBrook();
  await createTopicWithKafkaJs(broker.bootstrap, TOPIC, 2);
  await createTopicWithKafkaJs(broker.bootstrap, BIG, 1);
  const producer = kafkaJs(broker.bootstrap).producer();
  await producer.connect();
  try {
    base0 = baseOffsets(await producer.send({ topic: TOPIC, messages: keyed.map((m) => ({ ...m, partition: 0 })) })).get(0)!;
    base1 = baseOffsets(await producer.send({ topic: TOPIC, messages: binary.map((value) => ({ value, partition: 1 })) })).get(1)!;
    const line = 'y'.repeat(1000);
    for (let from = 0; from < BIG_RECORDS; from += 500) {
      await producer.send({ topic: BIG, messages: Array.from({ length: 500 }, (_, i) => ({ value: `${from + i} ${line}` })) });
    }
  } finally {
    await producer.disconnect();
  }
});

after(async () => {
  await broker.stop();
});

function consume(args: readonly string[]) {
  return runProcess(process.execPath, [BIN, 'consume', ...args, '-b', broker.bootstrap], { timeoutMs: 30_000 });
}

test('a kcat-style template prints topic, partition, offset, key, value, value length and headers; null value: empty, length -1', async () => {
  const r = await consume([TOPIC, '-p', '0', '-o', 'earliest', '-e', '-f', '%t|%p|%o|%k|%s|%S|%h\\n']);
  assert.equal(r.code, 0, r.stderr);
  const expected = keyed.map((m, i) => `${TOPIC}|0|${base0 + BigInt(i)}|${m.key}|${m.value ?? ''}|${m.value === null ? -1 : Buffer.byteLength(m.value)}|h=x${i},n=${i}\n`).join('');
  assert.equal(r.stdout, expected);
});

test('--offset -N starts N records before the end; --offset N at N; %% and \\t', async () => {
  const tail = await consume([TOPIC, '--partition', '0', '--offset', '-2', '--exit-at-end', '--format', '%o\\t%k%%\\n']);
  assert.equal(tail.code, 0, tail.stderr);
  assert.equal(tail.stdout, `${base0 + 3n}\tk3%\n${base0 + 4n}\tk4%\n`);
  const more = await consume([TOPIC, '-p', '0', '-o', '-99', '-e', '-f', '%o\\n']);
  assert.equal(more.stdout.trim().split('\n').length, 5, 'more than the partition holds: from its start');
  const from = await consume([TOPIC, '-p', '0,1', '-o', '1', '-e', '-f', '%p:%o\\n']);
  assert.equal(from.code, 0, from.stderr);
  assert.deepEqual(from.stdout.trim().split('\n').sort(), [
    ...[1n, 2n, 3n, 4n].map((o) => `0:${base0 + o}`), ...[1n, 2n].map((o) => `1:${base1 + o}`),
  ].sort());
});

test('--format json: headers after the documented keys when a record has them, a tombstone has value null, hex and base64 values', async () => {
  const r = await consume([TOPIC, '-o', 'earliest', '-e', '--format', 'json', '--value-encoding', 'hex']);
  assert.equal(r.code, 0, r.stderr);
  const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(records.length, keyed.length + binary.length);
  for (const rec of records) {
    if (rec['partition'] === 0) {
      const i = Number(BigInt(rec['offset'] as number) - base0);
      assert.deepEqual(Object.keys(rec), ['topic', 'partition', 'offset', 'key', 'value', 'timestamp', 'headers']);
      assert.equal(rec['value'], keyed[i]!.value === null ? null : Buffer.from(keyed[i]!.value!).toString('hex'));
      assert.deepEqual(rec['headers'], [{ key: 'h', value: Buffer.from(`x${i}`).toString('hex') }, { key: 'n', value: Buffer.from(`${i}`).toString('hex') }]);
    } else {
      const i = Number(BigInt(rec['offset'] as number) - base1);
      assert.deepEqual(Object.keys(rec), ['topic', 'partition', 'offset', 'key', 'value', 'timestamp']);
      assert.equal(rec['key'], null);
      assert.equal(rec['value'], binary[i]!.toString('hex'));
    }
  }
  const b64 = await consume([TOPIC, '-p', '1', '-o', 'earliest', '-e', '--value-encoding', 'base64', '--key-encoding', 'hex']);
  assert.equal(b64.stdout, binary.map((b) => `${b.toString('base64')}\n`).join(''));
  const keysHex = await consume([TOPIC, '-p', '0', '-o', 'earliest', '-e', '-f', '%k\\n', '--key-encoding', 'hex']);
  assert.equal(keysHex.stdout, keyed.map((m) => `${Buffer.from(m.key).toString('hex')}\n`).join(''));
});

test('--format value keeps raw bytes (binary values are not re-encoded)', async () => {
  const child = spawn(process.execPath, [BIN, 'consume', TOPIC, '-p', '1', '-o', 'earliest', '-e', '-b', broker.bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  assert.deepEqual(Buffer.concat(chunks), Buffer.concat(binary.flatMap((b) => [b, Buffer.from('\n')])));
});

test('usage errors exit 2: an unknown template token, a bad encoding, --partition with --group, a mistyped format name', async () => {
  for (const args of [['-f', '%q'], ['--value-encoding', 'utf16'], ['--group', 'g', '-p', '0'], ['--format', 'jsn'], ['--offset', 'soon']]) {
    const r = await consume([TOPIC, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  const noSuchPartition = await consume([TOPIC, '-p', '7', '-e']);
  assert.equal(noSuchPartition.code, 1);
  assert.match(noSuchPartition.stderr, /has no partition 7/);
});

test('a slow reader still gets every record (the writer waits for the pipe)', async () => {
  const child = spawn(process.execPath, [BIN, 'consume', BIG, '-o', 'earliest', '-e', '-b', broker.bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const chunks: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  child.stdout.resume();
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n');
  assert.equal(lines.length, BIG_RECORDS);
  assert.deepEqual(lines.map((l) => Number(l.split(' ')[0])), Array.from({ length: BIG_RECORDS }, (_, i) => i));
});

test('a reader that goes away (| head): exit 0, nothing on stderr', async () => {
  const child = spawn(process.execPath, [BIN, 'consume', BIG, '-o', 'earliest', '-b', broker.bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  // Read the first chunk, then close the pipe as `head` does.
  await new Promise((resolve) => child.stdout.once('data', resolve));
  child.stdout.destroy();
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '');
});
