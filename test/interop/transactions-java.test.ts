/**
 * Kafka 4.4.0's transactional producer and `kafka-transactions` tool against Brook's
 * transaction coordinator (test/support/java TransactionalFlow): initTransactions, a
 * committed and an aborted transaction, an open one that `kafka-transactions describe` and
 * `list` show Ongoing, a second producer with the same transactional id fencing the first
 * (whose commit then fails with ProducerFencedException), and the second's commit. The
 * partition then holds, read by a raw Fetch, a COMMIT or ABORT control batch after each
 * transaction's records, with the producer epoch of its end (bumped by the fence).
 *
 * Then Kafka's consume-transform-produce (test/support/java ConsumeTransformProduce,
 * `sendOffsetsToTransaction(offsets, consumer.groupMetadata())`): after each commit the
 * group's offsets that `kafka-consumer-groups` shows are the transaction's, after the abort
 * they are unchanged; read_committed consumers of Kafka (Java), librdkafka (confluent-kafka)
 * and KafkaJS see exactly the committed transactions' records, while a read_uncommitted
 * Fetch shows the aborted one's too.
 *
 * Last, the first flow against a Kafka 4.4 broker and against Brook: Kafka's producer runs
 * transaction version 2 on both (every end bumps the epoch), KafkaJS version 1 (the epoch
 * stays), and the logs are the same; Brook's own producer (version 1) keeps its epoch too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { commandWorks, runProcess, until, type RunResult } from '../support/clients/run.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { javaCommand } from '../support/java-oracle.js';
import { kafkaAvailable, kafkaClasspath, startKafka } from '../support/kafka/kafka-broker.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { Admin, Consumer, Producer } from '../../src/index.js';
import { decodeControlRecordKey, decodeEndTxnMarker, decodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';

const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'support', 'python');

function kafkaTransactions(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), 'org.apache.kafka.tools.TransactionsCommand', ...args], { timeoutMs: 60_000 });
}

interface JavaFlow {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  readonly exited: Promise<number | null>;
  stderr(): string;
  /** Resolves once the program printed `line`; fails when it exits first. */
  waitFor(line: string): Promise<void>;
}

/** One of test/support/java's programs, its stdout collected line by line. */
function javaFlow(mainClass: string, args: readonly string[], cleanup: Cleanup): JavaFlow {
  const [cmd, ...javaArgs] = javaCommand(`brook.conformance.${mainClass}`);
  const child = spawn(cmd!, [...javaArgs, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  cleanup.add(`kill ${mainClass}`, () => void child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (line: string): Promise<void> => {
    while (!lines.includes(line)) {
      const more = new Promise<void>((resolve) => waiters.push(resolve));
      const code = await Promise.race([more.then(() => undefined), exited]);
      if (code !== undefined && !lines.includes(line)) assert.fail(`${mainClass} exited ${code} before "${line}": ${lines.join(' | ')}\n${stderr.slice(-3000)}`);
    }
  };
  return { child, lines, exited, stderr: () => stderr, waitFor };
}

test('Kafka 4.4 transactional producer: commit, abort, fencing, kafka-transactions describe/list, markers in the log', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  const topic = 'txn-java';
  const transactionalId = 'txn-java-id';
  await admin.createTopic({ name: topic, partitions: 1 });

  const flow = javaFlow('TransactionalFlow', [broker.bootstrap, topic, transactionalId], cleanup);
  const { child, lines, exited } = flow;
  await flow.waitFor('ongoing');

  const described = await kafkaTransactions(['--bootstrap-server', broker.bootstrap, 'describe', '--transactional-id', transactionalId]);
  t.diagnostic(`kafka-transactions describe: ${described.stdout.trim()}`);
  assert.equal(described.code, 0, described.stderr);
  const [header, row] = described.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}|\t/));
  const field = (name: string): string | undefined => row?.[header!.indexOf(name)];
  assert.equal(field('TransactionalId'), transactionalId);
  assert.equal(field('TransactionState'), 'Ongoing');
  assert.equal(field('TransactionTimeoutMs'), '60000');
  assert.equal(field('TopicPartitions'), `${topic}-0`);
  const listed = await kafkaTransactions(['--bootstrap-server', broker.bootstrap, 'list']);
  t.diagnostic(`kafka-transactions list: ${listed.stdout.trim()}`);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`${transactionalId}\\s+${broker.config.nodeId}\\s+\\d+\\s+Ongoing`));

  child.stdin.write('go\n');
  assert.equal(await exited, 0, `${lines.join(' | ')}\n${flow.stderr().slice(-3000)}`);
  assert.deepEqual(lines, ['initialized', 'committed', 'aborted', 'ongoing', 'second initialized', 'fenced ProducerFencedException', 'second committed']);

  const done = await kafkaTransactions(['--bootstrap-server', broker.bootstrap, 'describe', '--transactional-id', transactionalId]);
  assert.match(done.stdout, /CompleteCommit/);

  // The log: data batches, each transaction ended by its marker.
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  cleanup.add('close raw connection', () => conn.close());
  const log = await markerLog(conn, topic);
  t.diagnostic(log.join('\n'));
  // Kafka 4.4's producer runs transaction version 2 (Brook finalizes transaction.version 2):
  // each end bumps the epoch and writes its marker under the new one. The first producer
  // starts at 0 (commit at 1, abort at 2); the fence aborts its open transaction at 3; the
  // second producer's InitProducerId bumps to 4, its commit to 5. The last test compares this
  // with Kafka's own log of the same flow.
  assert.deepEqual(log, TRANSACTIONAL_FLOW_LOG);
});

const TRANSACTIONAL_FLOW_LOG = [
  '0 committed-0 epoch 0', '1 committed-1 epoch 0', '2 committed-2 epoch 0', '3 COMMIT epoch 1',
  '4 aborted-0 epoch 1', '5 aborted-1 epoch 1', '6 ABORT epoch 2',
  '7 zombie-0 epoch 2', '8 ABORT epoch 3',
  '9 second-0 epoch 4', '10 COMMIT epoch 5',
];

/** Partition 0's log, read by a raw Fetch: each data record and each marker, with its producer epoch. */
async function markerLog(conn: RawConnection, topic: string): Promise<string[]> {
  const fetched = await conn.request('Fetch', 4, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: '', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  });
  const records = fetched.responses[0]!.partitions[0]!.records as Buffer;
  const log: string[] = [];
  for (const view of iterateBatches(records)) {
    const { header: h, records: rs } = decodeRecordBatch(view.buffer);
    assert.ok(h.isTransactional, `batch at ${h.baseOffset} is transactional`);
    if (h.isControl) {
      const key = decodeControlRecordKey(rs[0]!.key);
      assert.equal(decodeEndTxnMarker(rs[0]!.value).coordinatorEpoch, 0);
      log.push(`${h.baseOffset} ${key.type === 1 ? 'COMMIT' : 'ABORT'} epoch ${h.producerEpoch}`);
    } else {
      for (const r of rs) log.push(`${r.offset} ${r.value!.toString()} epoch ${h.producerEpoch}`);
    }
  }
  return log;
}

/** The values of partition 0's data records, read_uncommitted by a raw Fetch v4 (control batches skipped). */
async function rawValues(conn: RawConnection, topic: string): Promise<string[]> {
  const fetched = await conn.request('Fetch', 4, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: '', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  });
  const values: string[] = [];
  for (const view of iterateBatches(fetched.responses[0]!.partitions[0]!.records as Buffer)) {
    const { header, records } = decodeRecordBatch(view.buffer);
    if (!header.isControl) for (const r of records) values.push(r.value!.toString());
  }
  return values;
}

const kafkaGroups = (bootstrap: string, args: readonly string[]): Promise<RunResult> =>
  runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', '--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });

/** The group's committed offset of `topic`-0 as `kafka-consumer-groups --describe --offsets` shows it ("-" for none). */
async function committedOffset(bootstrap: string, group: string, topic: string): Promise<string> {
  const described = await kafkaGroups(bootstrap, ['--describe', '--offsets', '--group', group]);
  assert.equal(described.code, 0, described.stderr);
  const lines = described.stdout.split('\n').map((l) => l.trim().split(/\s+/));
  const header = lines.find((l) => l[0] === 'GROUP');
  const row = lines.find((l) => l[0] === group && l[1] === topic && l[2] === '0');
  assert.ok(header && row, `no row for ${topic}-0 in: ${described.stdout}`);
  return row[header.indexOf('CURRENT-OFFSET')]!;
}

test('Kafka 4.4 consume-transform-produce: sendOffsetsToTransaction commits or drops the group offsets; read_committed readers see the committed records', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  assert.ok(commandWorks('python3', ['-c', 'import confluent_kafka']), 'python3 with confluent-kafka is needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  const [input, output, group] = ['ctp-in', 'ctp-out', 'ctp-group'];
  await admin.createTopic({ name: input, partitions: 1 });
  await admin.createTopic({ name: output, partitions: 1 });
  const producer = new Producer({ bootstrapServers: broker.bootstrap, acks: 'all', lingerMs: 0 });
  cleanup.add('close producer', () => producer.close());
  for (let i = 0; i < 10; i++) await producer.send({ topic: input, partition: 0, key: `k${i}`, value: `in-${i}` });

  const flow = javaFlow('ConsumeTransformProduce', [broker.bootstrap, input, output, group, 'ctp-txn'], cleanup);
  await flow.waitFor('committed 4');
  assert.equal(await committedOffset(broker.bootstrap, group, input), '4', 'the committed transaction\'s offset');
  flow.child.stdin.write('go\n');
  await flow.waitFor('aborted 7');
  assert.equal(await committedOffset(broker.bootstrap, group, input), '4', 'the aborted transaction\'s offset is dropped');
  flow.child.stdin.write('go\n');
  await flow.waitFor('committed 10');
  assert.equal(await flow.exited, 0, flow.stderr().slice(-3000));
  assert.equal(await committedOffset(broker.bootstrap, group, input), '10');

  const inputs = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `in-${from + i}`);
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  cleanup.add('close raw connection', () => conn.close());
  // The aborted transaction's records are in the log, between the committed ones.
  assert.deepEqual(await rawValues(conn, output), [
    ...inputs(0, 4).map((v) => `t1:${v}`), ...inputs(4, 7).map((v) => `t2:${v}`), ...inputs(4, 10).map((v) => `t3:${v}`),
  ]);
  const committed = [...inputs(0, 4).map((v) => `t1:${v}`), ...inputs(4, 10).map((v) => `t3:${v}`)];

  const [cmd, ...args] = javaCommand('brook.conformance.ReadCommitted');
  const java = await runProcess(cmd!, [...args, broker.bootstrap, output, String(committed.length), '20000'], { timeoutMs: 60_000 });
  assert.equal(java.code, 0, java.stderr);
  assert.deepEqual(java.stdout.trim().split('\n'), committed, 'Java read_committed');

  const python = await runProcess('python3', [join(PYTHON_DIR, 'read_committed.py'), broker.bootstrap, output, String(committed.length), '20000'], { timeoutMs: 60_000 });
  assert.equal(python.code, 0, python.stderr);
  assert.deepEqual(JSON.parse(python.stdout) as string[], committed, 'librdkafka read_committed');

  const consumer = kafkaJs(broker.bootstrap).consumer({ groupId: 'ctp-kafkajs', readUncommitted: false, maxWaitTimeInMs: 100 });
  cleanup.add('kafkajs consumer', () => consumer.disconnect());
  const seen: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: output, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
  await until('KafkaJS read the committed records', 20_000, async () => (seen.length >= committed.length ? true : undefined));
  await new Promise((r) => setTimeout(r, 1000)); // records past them would show up now
  assert.deepEqual(seen, committed, 'KafkaJS readUncommitted: false');
});

test('Kafka 4.4 transactional producer: the same flow leaves the same markers and epochs on Kafka 4.4 and on Brook (transaction version 2); version-1 producers (KafkaJS, Brook\'s) keep their epoch', { timeout: 400_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const kafka = await startKafka({ config: { 'num.partitions': '1', 'group.initial.rebalance.delay.ms': '0' } });
  cleanup.add('stop kafka', () => kafka.stop());
  const brook = await startBrook();
  cleanup.add('stop broker', () => brook.stop());
  const logs: { java: string[]; kafkaJs: string[] }[] = [];
  for (const [name, bootstrap, host, port] of [['kafka', kafka.bootstrap, kafka.host, kafka.port], ['brook', brook.bootstrap, '127.0.0.1', brook.port]] as const) {
    const admin = await Admin.connect({ bootstrapServers: bootstrap });
    cleanup.add(`close ${name} admin`, () => admin.close());
    await admin.createTopic({ name: 'txn-v2', partitions: 1 });
    await admin.createTopic({ name: 'txn-kafkajs', partitions: 1 });
    const flow = javaFlow('TransactionalFlow', [bootstrap, 'txn-v2', 'txn-v2-id'], cleanup);
    await flow.waitFor('ongoing');
    flow.child.stdin.write('go\n');
    assert.equal(await flow.exited, 0, `${name}: ${flow.lines.join(' | ')}\n${flow.stderr().slice(-3000)}`);
    assert.deepEqual(flow.lines, ['initialized', 'committed', 'aborted', 'ongoing', 'second initialized', 'fenced ProducerFencedException', 'second committed']);

    // KafkaJS speaks transaction version 1 (EndTxn v1, AddPartitionsToTxn v1, Produce v7).
    const producer = kafkaJs(bootstrap).producer({ transactionalId: 'txn-kafkajs-id', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    cleanup.add(`disconnect ${name} kafkajs`, () => producer.disconnect());
    for (const value of ['kafkajs-a', 'kafkajs-b']) {
      const txn = await producer.transaction();
      await txn.send({ topic: 'txn-kafkajs', messages: [{ partition: 0, value }] });
      await txn.commit();
    }

    const conn = await RawConnection.connect(host, port, { timeoutMs: 5000 });
    cleanup.add(`close ${name} raw connection`, () => conn.close());
    const log = { java: await markerLog(conn, 'txn-v2'), kafkaJs: await markerLog(conn, 'txn-kafkajs') };
    t.diagnostic(`${name}: ${log.java.join(', ')}; KafkaJS: ${log.kafkaJs.join(', ')}`);
    logs.push(log);
  }
  assert.deepEqual(logs[1], logs[0], 'Brook\'s logs are Kafka\'s');
  assert.deepEqual(logs[0]!.java, TRANSACTIONAL_FLOW_LOG);
  assert.deepEqual(logs[0]!.kafkaJs, ['0 kafkajs-a epoch 0', '1 COMMIT epoch 0', '2 kafkajs-b epoch 0', '3 COMMIT epoch 0']);

  // Brook's own producer speaks transaction version 1 too.
  const admin = await Admin.connect({ bootstrapServers: brook.bootstrap });
  cleanup.add('close admin', () => admin.close());
  await admin.createTopic({ name: 'txn-v1', partitions: 1 });
  const producer = new Producer({ bootstrapServers: brook.bootstrap, transactionalId: 'txn-v1-id', acks: 'all', lingerMs: 0 });
  cleanup.add('close producer', () => producer.close());
  await producer.initTransactions();
  for (const value of ['v1-a', 'v1-b']) {
    await producer.beginTransaction();
    await producer.send({ topic: 'txn-v1', partition: 0, value });
    await producer.commitTransaction();
  }
  const conn = await RawConnection.connect('127.0.0.1', brook.port, { timeoutMs: 5000 });
  cleanup.add('close raw connection', () => conn.close());
  assert.deepEqual(await markerLog(conn, 'txn-v1'), ['0 v1-a epoch 0', '1 COMMIT epoch 0', '2 v1-b epoch 0', '3 COMMIT epoch 0']);
});

test('Kafka 4.4 transactional producer, 40 transactions of 1,000 records back to back (transaction version 2): every one committed, in order, none lost', { timeout: 180_000 }, async (t) => {
  // Each transaction's first Produce v12 arrives while the previous one's markers are still
  // being written (CONCURRENT_TRANSACTIONS, which the broker retries for up to 100 ms) and the
  // producer pipelines its next requests behind it: they must append after it, or their
  // sequence numbers arrive out of order (OUT_OF_ORDER_SEQUENCE_NUMBER, a fatal error).
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  const topic = 'txn-back-to-back';
  await admin.createTopic({ name: topic, partitions: 6 });
  const records = 40_000;
  const [cmd, ...args] = javaCommand('brook.conformance.BenchTxnProducer');
  const run = await runProcess(cmd!, [...args, broker.bootstrap, topic, String(records), '100', '1000', 'txn-back-to-back'], { timeoutMs: 150_000 });
  assert.equal(run.code, 0, run.stderr.slice(-3000));
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { records: number; transactions: number; errors: number; firstError?: string };
  assert.deepEqual([result.records, result.transactions, result.errors, result.firstError ?? null], [records, 40, 0, null]);
  // A read_committed consumer reads every record, once.
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, isolationLevel: 'read_committed', fetchMaxWaitMs: 100 });
  cleanup.add('close consumer', () => consumer.close());
  consumer.assign(Array.from({ length: 6 }, (_, partition) => ({ topic, partition })));
  consumer.seekToBeginning();
  let seen = 0;
  const deadline = Date.now() + 60_000;
  while (seen < records && Date.now() < deadline) seen += (await consumer.poll({ timeoutMs: 200 })).length;
  for (let i = 0; i < 5; i++) seen += (await consumer.poll({ timeoutMs: 200 })).length;
  assert.equal(seen, records);
});
