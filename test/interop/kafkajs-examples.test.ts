/**
 * KafkaJS v2.2.4's own example applications (test/interop/kafkajs-examples: admin.js,
 * producer.js, consumer.js and their PrettyConsoleLogger, unmodified) with only their
 * `require('../index')` line pointed at 'brook/kafkajs' (a CommonJS `require` of Brook's ES
 * module package), against Brook's broker (`bin/brook broker`, a process as a user runs it)
 * and against Apache Kafka 4.4; and the same files with KafkaJS 2.2.4 itself, the baseline,
 * against both. The examples hardcode their cluster: SASL_SSL on 127.0.0.1:9094 (PLAIN,
 * test/testtest), and two more seeds, 9097 and 9100, that nothing answers here (KafkaJS and
 * brook/kafkajs try seeds in the order given, so they reach 9094 first;
 * test/unit/kafkajs-seeds.test.ts puts unreachable seeds first). The runs go one after the
 * other on port 9094, under a lock shared with other fixed-port tests.
 *
 * Each run: admin.js until topic-test1 has 3 partitions (kcat's metadata), then SIGTERM;
 * producer.js for three of its 3-second batches (gzip, headers), then SIGTERM; consumer.js
 * (group test-group, from the beginning) until it has logged as many "Message processed" as
 * the producer logged sent, then SIGTERM. Checked: every message sent is consumed once, with
 * the key, value and headers kcat (librdkafka) reads from the topic at the same offset; the
 * group's committed offsets are the end offsets and the group is Empty (KafkaJS 2.2.4's
 * admin client); every example exits 0 on SIGTERM; no error is logged (but, by KafkaJS,
 * refused seeds and Kafka's transient first-use answers, see kafkaFirstUse); the broker lists
 * itself only. Across runs,
 * the examples' own log entries have the same messages and the same fields and types, and
 * KafkaJS's own entries are the same on Brook as on Kafka.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { spawnBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { kcatAvailable, kcatConsume } from '../support/clients/kcat.js';
import type { ClientRecord } from '../support/clients/records.js';
import { runProcess, until } from '../support/clients/run.js';
import { acquireFixedPorts, connectionRefused, portFree } from '../support/fixed-ports.js';
import { kafkaAvailable, startKafka } from '../support/kafka/kafka-broker.js';
import { ExampleProcess, layOutExamples, shapeOf, titleShape, type LogEntry } from '../support/kafkajs-examples.js';
import { makeTestPki, opensslMissing, type TestPki } from '../support/tls-certs.js';

const PORT = 9094;
const UNREACHABLE_SEEDS = [9097, 9100];
const BOOTSTRAP = `127.0.0.1:${PORT}`;
const BATCHES = 3;
const PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_test="testtest";';

const skip = opensslMissing() ?? (kcatAvailable() ? false : 'needs kcat (librdkafka) to check the topics');
const kafkaSkip = kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath (BROOK_KAFKA=0 or missing)';

type ClientPackage = 'brook/kafkajs' | 'kafkajs';

interface RunSummary {
  readonly name: string;
  readonly sent: number;
  readonly consumed: number;
  readonly ms: number;
  /** The examples' own entries: "stream level title-shape" → the shapes of their fields. */
  readonly exampleEntries: ReadonlyMap<string, ReadonlySet<string>>;
  /** The client library's entries: "level title-shape". */
  readonly libraryEntries: ReadonlySet<string>;
}

const EXAMPLE_TITLE = /^(Sending \d+ messages #\d+\.\.\.|Messages sent #\d+|Message processed|\[example\/(admin|producer|consumer)\] [\s\S]*)$/;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const WHY_FIXED = `KafkaJS's examples hardcode their brokers (127.0.0.1:${PORT}, ${UNREACHABLE_SEEDS.join(', ')})`;

/** Right before a broker starts: 9094 free, 9097 and 9100 refusing (the previous run's broker is gone). */
async function checkPorts(): Promise<void> {
  if (!(await portFree(PORT))) {
    throw new Error(`port ${PORT} on 127.0.0.1 is taken: ${WHY_FIXED}, so this test needs it free`);
  }
  for (const port of UNREACHABLE_SEEDS) {
    assert.ok(await connectionRefused(port), `something answers on 127.0.0.1:${port}: the examples' extra seeds must be unreachable for this test`);
  }
}

function kcatSasl(pki: TestPki): string[] {
  return ['-X', 'security.protocol=SASL_SSL', '-X', 'sasl.mechanisms=PLAIN', '-X', 'sasl.username=test', '-X', 'sasl.password=testtest', '-X', `ssl.ca.location=${pki.ca}`];
}

interface KcatMetadata {
  brokers: { id: number; name: string }[];
  topics: { topic: string; partitions: unknown[] }[];
}

/** Metadata of all topics (never auto-creates one), from kcat. */
async function kcatMetadata(pki: TestPki): Promise<KcatMetadata> {
  const r = await runProcess('kcat', ['-b', BOOTSTRAP, '-L', '-J', '-m', '5', ...kcatSasl(pki)], { timeoutMs: 15_000 });
  if (r.code !== 0) throw new Error(`kcat -L exited ${r.code}: ${r.stderr.slice(-1000)}`);
  return JSON.parse(r.stdout) as KcatMetadata;
}

/** KafkaJS 2.2.4, the independent client for offsets and the group's state. */
function checker(pki: TestPki): Kafka {
  return new Kafka({
    clientId: 'examples-check', brokers: [BOOTSTRAP], logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 10_000,
    ssl: { ca: [pki.caPem] }, sasl: { mechanism: 'plain', username: 'test', password: 'testtest' },
  });
}

/** Waits until `done`, failing early when `example` exited, with its last lines. */
async function waitFor(example: ExampleProcess, what: string, ms: number, done: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (example.hasExited()) throw new Error(`${example.file} exited before ${what}:\n${example.tail()}`);
    if (Date.now() > deadline) throw new Error(`${example.file}: no ${what} within ${ms} ms:\n${example.tail()}`);
    await sleep(100);
  }
}

/** Still running (its client's sockets keep it alive, as KafkaJS's do), then SIGTERM: its handler disconnects and it exits 0. */
async function terminatesCleanly(example: ExampleProcess): Promise<void> {
  assert.ok(!example.hasExited(), `${example.file} exited before SIGTERM:\n${example.tail()}`);
  const exit = await example.terminate();
  assert.deepEqual(exit, { code: 0, signal: null }, `${example.file} on SIGTERM:\n${example.tail()}`);
  const name = example.file.replace(/\.js$/, '');
  assert.ok(example.entries().some((e) => e.title === `[example/${name}] disconnecting`), `${example.file} logged its disconnect`);
}

/** The record batches of a partition's log segments (Kafka's on-disk format, which Brook keeps too): compression codec and record count of each. */
function storedBatches(partitionDir: string): { codec: number; records: number }[] {
  const batches: { codec: number; records: number }[] = [];
  for (const file of readdirSync(partitionDir).filter((f) => f.endsWith('.log')).sort()) {
    const bytes = readFileSync(join(partitionDir, file));
    // baseOffset int64, batchLength int32, leader epoch int32, magic int8, crc int32, attributes int16 (at 21), ..., record count int32 (at 57).
    for (let pos = 0; pos + 61 <= bytes.length; pos += 12 + bytes.readInt32BE(pos + 8)) {
      batches.push({ codec: bytes.readInt16BE(pos + 21) & 0x7, records: bytes.readInt32BE(pos + 57) });
    }
  }
  return batches;
}

/** KafkaJS logs a refused connection to a seed at error level, then tries the next seed: expected here. */
function unreachableSeed(e: LogEntry): boolean {
  const text = `${e.title} ${JSON.stringify(e.extra)}`;
  return text.includes('ECONNREFUSED') && UNREACHABLE_SEEDS.some((port) => text.includes(`:${port}`));
}

/**
 * Kafka's answers on a fresh cluster that KafkaJS logs at error level and then retries: the
 * first Metadata naming the auto-created topic-test (UNKNOWN_TOPIC_OR_PARTITION: Kafka creates
 * it asynchronously) and the first FindCoordinator (COORDINATOR_NOT_AVAILABLE while Kafka
 * creates __consumer_offsets). Brook does both synchronously (docs/ARCHITECTURE.md); Brook's
 * client retries without logging, so only KafkaJS's runs against Kafka may show them.
 */
function kafkaFirstUse(e: LogEntry): boolean {
  return /^\[Connection\] Response (Metadata|GroupCoordinator)\(key: \d+, version: \d+\)$/.test(e.title)
    && ['This server does not host this topic-partition', 'The group coordinator is not available'].includes(e.extra['error'] as string);
}

/**
 * On Node 23 and later KafkaJS 2.2.4 makes Node print a TimeoutNegativeWarning (its request
 * queue computes a timer's delay from a throttle time of -1): KafkaJS's defect, which
 * brook/kafkajs does not have; tolerated in KafkaJS's runs only.
 */
function kafkajsTimerWarning(line: string): boolean {
  return /^\(node:\d+\) TimeoutNegativeWarning: -\d+ is a negative number\.$/.test(line)
    || line === 'Timeout duration was set to 1.'
    || line.startsWith('(Use `node --trace-warnings ...` to show where the warning was created)');
}

function sortRecords(records: ClientRecord[]): ClientRecord[] {
  return [...records].sort((a, b) => a.partition - b.partition || (a.offset < b.offset ? -1 : a.offset > b.offset ? 1 : 0));
}

/** admin.js, producer.js, consumer.js in turn against whatever listens on 9094; the checks above. */
async function runExamples(t: TestContext, name: string, client: ClientPackage, pki: TestPki, cleanup: Cleanup, startedAt: number, target: Target): Promise<RunSummary> {
  const tolerated = (e: LogEntry): boolean => e.level === 'error' && (unreachableSeed(e) || (client === 'kafkajs' && target.broker === 'kafka' && kafkaFirstUse(e)));
  const dir = layOutExamples(client, pki.caPem);
  cleanup.add('remove examples dir', () => dir.remove());
  const examples: ExampleProcess[] = [];
  const start = (file: string): ExampleProcess => {
    const example = new ExampleProcess(file, dir.path);
    examples.push(example);
    cleanup.add(`kill ${file}`, () => example.kill());
    return example;
  };

  const admin = start('admin.js');
  try {
    await until('topic-test1 with 3 partitions', 60_000, async () => {
      const topic = (await kcatMetadata(pki)).topics.find((x) => x.topic === 'topic-test1');
      return topic?.partitions.length === 3 ? true : undefined;
    }, 250);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nadmin.js:\n${admin.tail()}`);
  }
  // createPartitions was its last call: let its answer arrive before the signal.
  await sleep(1_000);
  await terminatesCleanly(admin);

  const producer = start('producer.js');
  const sentEntries = (): LogEntry[] => producer.entries().filter((e) => /^Messages sent #\d+$/.test(e.title));
  await waitFor(producer, `${BATCHES} batches sent`, 60_000, () => sentEntries().length >= BATCHES);
  await terminatesCleanly(producer);
  const batches = new Map<number, number>();
  for (const e of producer.entries()) {
    const m = /^Sending (\d+) messages #(\d+)\.\.\.$/.exec(e.title);
    if (m) batches.set(Number(m[2]), Number(m[1]));
  }
  const acknowledged = sentEntries().map((e) => Number(/#(\d+)$/.exec(e.title)![1]));
  assert.deepEqual(acknowledged.sort((a, b) => a - b), [...batches.keys()].sort((a, b) => a - b), 'every batch the producer started was acknowledged');
  const sent = [...batches.values()].reduce((a, b) => a + b, 0);
  assert.ok(sent > 0, 'the producer sent messages');
  assert.equal(Math.max(...sentEntries().map((e) => e.extra['msgNumber'] as number)), sent, 'the last msgNumber logged is the total sent');
  // Sends are 3 s apart, each answered before the next: batch #i starts where #i-1 ended.
  let nextOffset = 0;
  for (const id of [...batches.keys()].sort((a, b) => a - b)) {
    const response = sentEntries().find((e) => e.title === `Messages sent #${id}`)!.extra['response'] as { topicName: string; partition: number; baseOffset: string }[];
    assert.deepEqual(response.map((r) => [r.topicName, r.partition, r.baseOffset]), [['topic-test', 0, String(nextOffset)]], `RecordMetadata of batch #${id}`);
    nextOffset += batches.get(id)!;
  }
  // topic-test has the broker's default partition count, 1: its log on disk is what was sent, gzip-compressed.
  const batchesOnDisk = storedBatches(join(target.logDir, 'topic-test-0'));
  assert.deepEqual(new Set(batchesOnDisk.map((b) => b.codec)), new Set([1]), 'every stored batch is gzip (codec 1)');
  assert.equal(batchesOnDisk.reduce((n, b) => n + b.records, 0), sent, 'the stored batches hold what was sent');

  const consumer = start('consumer.js');
  const processed = (): LogEntry[] => consumer.entries().filter((e) => e.title === 'Message processed');
  await waitFor(consumer, `${sent} messages processed`, 90_000, () => processed().length >= sent);
  // A message processed twice would show up here.
  await sleep(1_500);
  await terminatesCleanly(consumer);
  const consumed = processed().map((e): ClientRecord => {
    assert.equal(e.extra['topic'], 'topic-test');
    return {
      partition: e.extra['partition'] as number, offset: BigInt(e.extra['offset'] as string),
      key: e.extra['key'] as string, value: e.extra['value'] as string, headers: e.extra['headers'] as Record<string, string>,
    };
  });
  assert.deepEqual(processed().map((e) => e.extra['msgNumber']), consumed.map((_, i) => i + 1), 'msgNumber counts each message once');
  // producer.js makes each message from one number and two clocks: key-N, value-N-<ISO time>,
  // header correlation-id N-<ms>; the record's timestamp is the producer's send time.
  for (const e of processed()) {
    const key = /^key-(\d+)$/.exec(e.extra['key'] as string);
    const value = /^value-(\d+)-(.+)$/.exec(e.extra['value'] as string);
    const header = /^(\d+)-(\d+)$/.exec((e.extra['headers'] as Record<string, string>)['correlation-id'] ?? '');
    assert.ok(key && value && header && key[1] === value[1] && key[1] === header[1], `one message's key, value and header: ${JSON.stringify(e.extra)}`);
    const made = Date.parse(value[2]!);
    const timestamp = Number(e.extra['timestamp']);
    assert.ok(timestamp >= made - 1_000 && timestamp <= made + 10_000, `timestamp ${timestamp} is the send time of a message made at ${value[2]}`);
  }
  const stored = await kcatConsume(BOOTSTRAP, 'topic-test', 30_000, kcatSasl(pki));
  assert.equal(stored.length, sent, 'the topic holds what the producer reported sent');
  assert.deepEqual(sortRecords(consumed), sortRecords(stored), 'every message consumed once, as stored (partition, offset, key, value, headers)');

  const metadata = await kcatMetadata(pki);
  assert.deepEqual(metadata.brokers.map((b) => b.name), [BOOTSTRAP], 'the broker lists itself only');
  const kafkajs = checker(pki).admin();
  await kafkajs.connect();
  try {
    const ends = await kafkajs.fetchTopicOffsets('topic-test');
    const [committed] = await kafkajs.fetchOffsets({ groupId: 'test-group', topics: ['topic-test'] });
    const byPartition = (list: { partition: number; offset: string }[]): Record<number, string> =>
      Object.fromEntries(list.map((p) => [p.partition, p.offset]));
    assert.deepEqual(byPartition(committed!.partitions), byPartition(ends.map((p) => ({ partition: p.partition, offset: p.high }))), 'committed offsets are the end offsets');
    const { groups } = await kafkajs.describeGroups(['test-group']);
    assert.equal(groups[0]?.state, 'Empty', 'the consumer left its group on SIGTERM');
  } finally {
    await kafkajs.disconnect();
  }

  const all = examples.flatMap((e) => e.entries());
  const errors = all.filter((e) => e.level === 'error' && !tolerated(e));
  assert.deepEqual(errors.map((e) => `${e.title} ${JSON.stringify(e.extra)}`), [], 'no error logged');
  const stray = examples.flatMap((e) => e.stray()).filter((line) => !(client === 'kafkajs' && kafkajsTimerWarning(line)));
  assert.deepEqual(stray, [], 'nothing printed but log entries');

  const exampleEntries = new Map<string, Set<string>>();
  const libraryEntries = new Set<string>();
  for (const e of all) {
    if (EXAMPLE_TITLE.test(e.title)) {
      const key = `${e.stream} ${e.level} ${titleShape(e.title)}`;
      if (!exampleEntries.has(key)) exampleEntries.set(key, new Set());
      exampleEntries.get(key)!.add(JSON.stringify(shapeOf(e.extra)));
    } else if (!tolerated(e)) {
      libraryEntries.add(`${e.level} ${titleShape(e.title)}`);
    }
  }
  const ms = Math.round(performance.now() - startedAt);
  t.diagnostic(`${name}: ${sent} messages sent in ${batches.size} batches, ${consumed.length} consumed, ${ms} ms`);
  for (const e of all.filter((x) => x.level === 'warn' || tolerated(x))) t.diagnostic(`${name}: ${e.level} ${e.title.slice(0, 200)} ${String(e.extra['error'] ?? '')}`);
  return { name, sent, consumed: consumed.length, ms, exampleEntries, libraryEntries };
}

/** A broker listening on 9094: where its partition logs are, and a stop that checks it ended well. */
interface Target {
  readonly broker: 'brook' | 'kafka';
  readonly logDir: string;
  stop(): Promise<void>;
}

/** `bin/brook broker` with one SASL_SSL listener on 9094 (PLAIN user test), data in a temp dir; stop() checks a clean exit. */
async function brookTarget(pki: TestPki, cleanup: Cleanup): Promise<Target> {
  const dir = tempDir('brook-examples-broker-');
  cleanup.add('remove broker dir', () => dir.remove());
  const config = join(dir.path, 'broker.properties');
  writeFileSync(config, [
    `listeners=SASL_SSL://${BOOTSTRAP}`,
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${pki.serverKeystore}`,
    'listener.name.sasl_ssl.sasl.enabled.mechanisms=PLAIN',
    `listener.name.sasl_ssl.plain.sasl.jaas.config=${PLAIN_JAAS}`,
    '',
  ].join('\n'));
  const broker = await spawnBrook(['--config', config, '--data-dir', join(dir.path, 'data')]);
  cleanup.add('stop brook', () => broker.stop());
  return { broker: 'brook', logDir: join(dir.path, 'data'), stop: async () => {
    const code = await broker.stop();
    const errors = broker.stderr().split('\n').filter((l) => l.includes('level=error'));
    assert.deepEqual(errors, [], 'the broker logged no error');
    assert.equal(code, 0, `the broker's exit code: ${broker.stderr().slice(-2000)}`);
  } };
}

async function kafkaTarget(pki: TestPki, cleanup: Cleanup): Promise<Target> {
  const kafka = await startKafka({
    saslListeners: ['SASL_SSL'],
    saslListenerPorts: { SASL_SSL: PORT },
    config: {
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': pki.serverEncryptedKeystore,
      'ssl.key.password': pki.serverKeyPassword,
      'listener.name.sasl_ssl.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl_ssl.plain.sasl.jaas.config': PLAIN_JAAS,
      // Kafka's and Brook's default (the harness otherwise sets 0).
      'group.initial.rebalance.delay.ms': '3000',
    },
  });
  cleanup.add('stop kafka', () => kafka.stop());
  return { broker: 'kafka', logDir: join(kafka.dataDir, 'logs'), stop: async () => { await kafka.stop(); } };
}

test("KafkaJS v2.2.4's example applications with brook/kafkajs and with KafkaJS 2.2.4, on Brook and on Apache Kafka 4.4", { timeout: 900_000, skip }, async (t) => {
  // Other tests with fixed ports (KafkaJS's own suite) may run beside this one: one at a time.
  const ports = await acquireFixedPorts([PORT, ...UNREACHABLE_SEEDS], WHY_FIXED, 480_000);
  t.after(() => ports.release());
  const pki = makeTestPki();
  t.after(() => pki.remove());
  const runs: RunSummary[] = [];
  const target = (name: string, client: ClientPackage, broker: typeof brookTarget, timeout: number, skipIt: string | false = false) =>
    t.test(name, { timeout, skip: skipIt }, async (tt) => {
      await checkPorts();
      const cleanup = new Cleanup();
      tt.after(() => cleanup.run());
      const startedAt = performance.now();
      const running = await broker(pki, cleanup);
      const summary = await runExamples(tt, name, client, pki, cleanup, startedAt, running);
      await running.stop();
      runs.push(summary);
    });

  await target('brook/kafkajs against Brook (bin/brook broker)', 'brook/kafkajs', brookTarget, 180_000);
  await target('brook/kafkajs against Apache Kafka 4.4', 'brook/kafkajs', kafkaTarget, 240_000, kafkaSkip);
  await target('KafkaJS 2.2.4 against Brook (the baseline)', 'kafkajs', brookTarget, 180_000);
  await target('KafkaJS 2.2.4 against Apache Kafka 4.4', 'kafkajs', kafkaTarget, 240_000, kafkaSkip);

  await t.test("the examples' own log entries: the same messages, fields and types in every run", { timeout: 5_000 }, () => {
    assert.ok(runs.length >= 2, `only ${runs.length} run(s) finished`);
    const [first, ...rest] = runs;
    const asObject = (r: RunSummary) => Object.fromEntries([...r.exampleEntries].sort().map(([k, v]) => [k, [...v].sort()]));
    for (const r of rest) assert.deepEqual(asObject(r), asObject(first!), `${r.name} vs ${first!.name}`);
    // KafkaJS itself logs the same things on either broker.
    const kafkajsRuns = runs.filter((r) => r.name.startsWith('KafkaJS'));
    if (kafkajsRuns.length === 2) assert.deepEqual([...kafkajsRuns[0]!.libraryEntries].sort(), [...kafkajsRuns[1]!.libraryEntries].sort(), "KafkaJS's own log entries on Brook and on Kafka");
    for (const r of runs) t.diagnostic(`${r.name}: library log entries: ${[...r.libraryEntries].sort().join(' | ') || 'none'}`);
  });
});
