/**
 * The transactional producer's state machine (Kafka's TransactionManager) against a
 * scripted broker (FakeKafka; every request crosses the real codecs at the negotiated
 * version) on a ManualScheduler: the order and contents of InitProducerId,
 * AddPartitionsToTxn, Produce, AddOffsetsToTxn, TxnOffsetCommit and EndTxn; retries of
 * retriable coordinator errors; fencing (fatal), abortable errors and the epoch bump after
 * an abort; misuse refused with IllegalStateError; time limits.
 *
 * The expected wire behaviour is Java's producer's (Kafka 4.4 clients): transaction
 * version 1 caps (EndTxn v4, AddPartitionsToTxn v3), a partition added before its first
 * batch, the batch flagged transactional.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigError, ErrorCode, IllegalStateError, Producer, ProducerFencedError, TimeoutError, TransactionAbortableError, TransactionAbortedError,
  type ProducerOptions,
} from '../../src/index.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { readBatchHeader } from '../../src/protocol/records/record-batch.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { FakeKafka, type AnySentRequest } from '../support/fake-kafka.js';

const TXN = 'txn-1';

interface Setup {
  readonly fake: FakeKafka;
  readonly scheduler: ManualScheduler;
  readonly producer: Producer;
  /** What Produce was answered with, per partition ("t:0"); default NONE. */
  readonly produceErrors: Map<string, number>;
}

function setup(t: { after(fn: () => unknown): void }, options: Partial<ProducerOptions> = {}): Setup {
  const scheduler = new ManualScheduler(1_000);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 2);
  let epoch = -1;
  fake.on('InitProducerId', (r) => {
    epoch = (r.producerId ?? -1n) >= 0n ? (r.producerEpoch ?? -1) + 1 : epoch + 1;
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: 7n, producerEpoch: epoch };
  });
  fake.on('AddPartitionsToTxn', (r) => ({
    throttleTimeMs: 0,
    resultsByTopicV3AndBelow: (r.v3AndBelowTopics ?? []).map((t) => ({
      name: t.name, resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: ErrorCode.NONE })),
    })),
  }));
  const produceErrors = new Map<string, number>();
  let offset = 0n;
  fake.on('Produce', (r) => ({
    throttleTimeMs: 0,
    responses: r.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({
        index: p.index, errorCode: produceErrors.get(`${t.name}:${p.index}`) ?? ErrorCode.NONE, baseOffset: offset++, logAppendTimeMs: -1n, logStartOffset: 0n,
        recordErrors: [], errorMessage: null,
      })),
    })),
  }));
  fake.on('AddOffsetsToTxn', () => ({ throttleTimeMs: 0, errorCode: ErrorCode.NONE }));
  fake.on('TxnOffsetCommit', (r) => ({
    throttleTimeMs: 0,
    topics: r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE })) })),
  }));
  fake.on('EndTxn', () => ({ throttleTimeMs: 0, errorCode: ErrorCode.NONE }));
  const producer = new Producer({
    bootstrapServers: '127.0.0.1:9092', transactionalId: TXN, transactionTimeoutMs: 30_000, lingerMs: 0, retryBackoffMs: 100,
    scheduler, connectionFactory: fake.connectionFactory, ...options,
  });
  t.after(() => producer.close(0));
  return { fake, scheduler, producer, produceErrors };
}

/** The transactional requests in order (FindCoordinator with its key type), without Metadata. */
function flow(fake: FakeKafka): string[] {
  return fake.sent.filter((r) => r.api !== 'Metadata').map((r: AnySentRequest) => {
    if (r.api === 'FindCoordinator') return `FindCoordinator(${r.body.keyType ?? 0})`;
    if (r.api === 'EndTxn') return `EndTxn(${r.body.committed ? 'commit' : 'abort'})`;
    return r.api;
  });
}

test('a transaction: InitProducerId with the transactional id, AddPartitionsToTxn before the first batch, transactional batches, EndTxn(commit) after the flush', { timeout: 10_000 }, async (t) => {
  const { fake, producer } = setup(t);
  await producer.initTransactions();
  const init = fake.requests('InitProducerId')[0]!.body;
  assert.equal(init.transactionalId, TXN);
  assert.equal(init.transactionTimeoutMs, 30_000);
  assert.equal(fake.requests('FindCoordinator')[0]!.body.keyType, 1);
  assert.deepEqual(producer.producerIdAndEpoch, { producerId: 7n, producerEpoch: 0 });
  producer.beginTransaction();
  assert.equal(producer.transactionState, 'IN_TRANSACTION');
  const sent = [producer.send({ topic: 't', partition: 0, value: 'a' }), producer.send({ topic: 't', partition: 1, value: 'b' })];
  await producer.commitTransaction();
  await Promise.all(sent);
  assert.deepEqual(flow(fake), ['FindCoordinator(1)', 'InitProducerId', 'AddPartitionsToTxn', 'Produce', 'EndTxn(commit)']);
  // Transaction version 1, as Java's producer without transaction.version 2 (the fake offers EndTxn v5, AddPartitionsToTxn v5).
  const add = fake.requests('AddPartitionsToTxn')[0]!;
  assert.equal(add.version, 3);
  assert.equal(add.body.v3AndBelowTransactionalId, TXN);
  assert.deepEqual(add.body.v3AndBelowTopics, [{ name: 't', partitions: [0, 1] }]);
  assert.equal(fake.requests('EndTxn')[0]!.version, 4);
  const produce = fake.requests('Produce')[0]!.body;
  assert.equal(produce.transactionalId, TXN);
  for (const p of produce.topicData[0]!.partitionData) {
    const header = readBatchHeader(p.records!);
    assert.equal(header.isTransactional, true);
    assert.equal(header.producerId, 7n);
    assert.equal(header.baseSequence, 0);
  }
  assert.equal(producer.transactionState, 'READY');
});

test('misuse is refused with IllegalStateError; a transactionalId implies idempotence', { timeout: 10_000 }, async (t) => {
  const { fake, producer } = setup(t);
  await assert.rejects(producer.send({ topic: 't', value: 'x' }), IllegalStateError);
  assert.throws(() => producer.beginTransaction(), IllegalStateError);
  await producer.initTransactions();
  await assert.rejects(producer.initTransactions(), IllegalStateError);
  await assert.rejects(producer.send({ topic: 't', value: 'x' }), IllegalStateError);
  await assert.rejects(producer.commitTransaction(), IllegalStateError);
  await assert.rejects(producer.abortTransaction(), IllegalStateError);
  await assert.rejects(producer.sendOffsetsToTransaction([{ topic: 't', partition: 0, offset: 1n }], { groupId: 'g' }), IllegalStateError);
  producer.beginTransaction();
  assert.throws(() => producer.beginTransaction(), IllegalStateError);
  await assert.rejects(producer.sendOffsetsToTransaction([{ topic: 't', partition: 0, offset: 1n }], { groupId: null }), IllegalStateError);
  // A transaction without records or offsets ends without EndTxn (the coordinator never heard of it).
  await producer.commitTransaction();
  assert.equal(fake.requests('EndTxn').length, 0);

  const plain = new Producer({ bootstrapServers: '127.0.0.1:9092', connectionFactory: fake.connectionFactory });
  t.after(() => plain.close(0));
  await assert.rejects(plain.initTransactions(), IllegalStateError);
  assert.throws(() => new Producer({ bootstrapServers: '127.0.0.1:9092', transactionalId: TXN, idempotent: false }), ConfigError);
  assert.throws(() => new Producer({ bootstrapServers: '127.0.0.1:9092', transactionalId: TXN, acks: 1 }), ConfigError);
  const implied = new Producer({ bootstrapServers: '127.0.0.1:9092', transactionalId: TXN, connectionFactory: fake.connectionFactory });
  t.after(() => implied.close(0));
  assert.equal(implied.idempotent, true);
});

test('InitProducerId is retried on COORDINATOR_LOAD_IN_PROGRESS and CONCURRENT_TRANSACTIONS, and the coordinator looked up again on NOT_COORDINATOR', { timeout: 10_000 }, async (t) => {
  const { fake, scheduler, producer } = setup(t);
  for (const errorCode of [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NOT_COORDINATOR]) {
    fake.once('InitProducerId', () => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 }));
  }
  const init = producer.initTransactions();
  for (let i = 0; i < 3; i++) await scheduler.advance(100);
  await init;
  assert.deepEqual(flow(fake), ['FindCoordinator(1)', 'InitProducerId', 'InitProducerId', 'InitProducerId', 'FindCoordinator(1)', 'InitProducerId']);
  const times = fake.requests('InitProducerId').map((r) => r.atMs);
  assert.deepEqual(times, [1_000, 1_100, 1_200, 1_300], 'each retry after retry.backoff.ms');
  assert.equal(producer.transactionState, 'READY');
});

test('AddPartitionsToTxn answered CONCURRENT_TRANSACTIONS is retried after 20 ms for a transaction\'s first partitions (Java\'s ADD_PARTITIONS_RETRY_BACKOFF_MS), after retry.backoff.ms later', { timeout: 10_000 }, async (t) => {
  const { fake, scheduler, producer } = setup(t);
  await producer.initTransactions();
  const concurrent = () => ({
    throttleTimeMs: 0, resultsByTopicV3AndBelow: [{ name: 't', resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: ErrorCode.CONCURRENT_TRANSACTIONS }] }],
  });
  // The previous transaction still writing its markers: the first AddPartitionsToTxn of the next one.
  fake.once('AddPartitionsToTxn', concurrent);
  producer.beginTransaction();
  const first = producer.send({ topic: 't', partition: 0, value: 'a' });
  await scheduler.advance(0);
  await scheduler.advance(20);
  await first;
  const times = fake.requests('AddPartitionsToTxn').map((r) => r.atMs);
  assert.equal(times.length, 2);
  assert.equal(times[1]! - times[0]!, 20);
  // A partition added to a transaction that has some already: the ordinary backoff.
  fake.once('AddPartitionsToTxn', () => ({
    throttleTimeMs: 0, resultsByTopicV3AndBelow: [{ name: 't', resultsByPartition: [{ partitionIndex: 1, partitionErrorCode: ErrorCode.CONCURRENT_TRANSACTIONS }] }],
  }));
  const second = producer.send({ topic: 't', partition: 1, value: 'b' });
  await scheduler.advance(0);
  await scheduler.advance(20);
  assert.equal(fake.requests('AddPartitionsToTxn').length, 3, 'no retry after 20 ms');
  await scheduler.advance(80);
  await second;
  const later = fake.requests('AddPartitionsToTxn').map((r) => r.atMs);
  assert.equal(later[3]! - later[2]!, 100);
  await producer.commitTransaction();
});

test('a call that times out leaves the operation running; calling again waits for the same one', { timeout: 10_000 }, async (t) => {
  const { fake, scheduler, producer } = setup(t);
  const gate = fake.hold('InitProducerId');
  const first = producer.initTransactions({ timeoutMs: 1_000 });
  const failed = assert.rejects(first, TimeoutError);
  await scheduler.advance(1_000);
  await failed;
  const second = producer.initTransactions({ timeoutMs: 1_000 });
  gate.open();
  await second;
  assert.equal(fake.requests('InitProducerId').length, 1);
  // A caller's signal ends the call too.
  producer.beginTransaction();
  await producer.send({ topic: 't', partition: 0, value: 'a' });
  const endGate = fake.hold('EndTxn');
  const controller = new AbortController();
  const commit = producer.commitTransaction({ signal: controller.signal });
  const aborted = assert.rejects(commit, (err: unknown) => err === 'stop');
  controller.abort('stop');
  await aborted;
  endGate.open();
  await producer.commitTransaction();
  assert.equal(fake.requests('EndTxn').length, 1);
});

test('fencing is fatal: EndTxn\'s PRODUCER_FENCED and Produce\'s INVALID_PRODUCER_EPOCH reject with ProducerFencedError', { timeout: 10_000 }, async (t) => {
  {
    const { fake, producer } = setup(t);
    await producer.initTransactions();
    producer.beginTransaction();
    await producer.send({ topic: 't', partition: 0, value: 'a' });
    fake.once('EndTxn', () => ({ throttleTimeMs: 0, errorCode: ErrorCode.PRODUCER_FENCED }));
    await assert.rejects(producer.commitTransaction(), ProducerFencedError);
    assert.equal(producer.transactionState, 'FATAL_ERROR');
    assert.throws(() => producer.beginTransaction(), ProducerFencedError);
    await assert.rejects(producer.send({ topic: 't', value: 'b' }), ProducerFencedError);
    await assert.rejects(producer.abortTransaction(), ProducerFencedError);
  }
  {
    const { producer, produceErrors } = setup(t);
    await producer.initTransactions();
    producer.beginTransaction();
    produceErrors.set('t:0', ErrorCode.INVALID_PRODUCER_EPOCH);
    await assert.rejects(producer.send({ topic: 't', partition: 0, value: 'a' }), ProducerFencedError);
    assert.equal(producer.transactionState, 'FATAL_ERROR');
    await assert.rejects(producer.commitTransaction(), ProducerFencedError);
  }
});

test('a failed record makes the transaction abortable; the abort bumps the epoch (KIP-360) and the next transaction starts at sequence 0', { timeout: 10_000 }, async (t) => {
  const { fake, producer, produceErrors } = setup(t);
  await producer.initTransactions();
  producer.beginTransaction();
  await producer.send({ topic: 't', partition: 1, value: 'ok' });
  produceErrors.set('t:0', ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  await assert.rejects(producer.send({ topic: 't', partition: 0, value: 'refused' }), (err: Error & { errorCode?: number }) => err.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  assert.equal(producer.transactionState, 'ABORTABLE_ERROR');
  await assert.rejects(producer.send({ topic: 't', partition: 1, value: 'more' }), TransactionAbortableError);
  await assert.rejects(producer.commitTransaction(), (err: unknown) => err instanceof TransactionAbortableError && (err.cause as { errorCode?: number }).errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  await producer.abortTransaction();
  assert.equal(producer.transactionState, 'READY');
  const bump = fake.requests('InitProducerId')[1]!.body;
  assert.deepEqual([bump.producerId, bump.producerEpoch], [7n, 0]);
  assert.deepEqual(producer.producerIdAndEpoch, { producerId: 7n, producerEpoch: 1 });
  assert.deepEqual(flow(fake).slice(-2), ['EndTxn(abort)', 'InitProducerId']);

  produceErrors.clear();
  producer.beginTransaction();
  await producer.send({ topic: 't', partition: 1, value: 'again' });
  await producer.commitTransaction();
  const header = readBatchHeader(fake.requests('Produce').at(-1)!.body.topicData[0]!.partitionData[0]!.records!);
  assert.deepEqual([header.producerEpoch, header.baseSequence], [1, 0]);
  // The partition joins the new transaction again.
  assert.deepEqual(fake.requests('AddPartitionsToTxn').at(-1)!.body.v3AndBelowTopics, [{ name: 't', partitions: [1] }]);
});

test('abortTransaction fails records not sent yet with TransactionAbortedError and ends the transaction the coordinator knows of', { timeout: 10_000 }, async (t) => {
  const { fake, producer } = setup(t);
  await producer.initTransactions();
  producer.beginTransaction();
  const gate = fake.hold('AddPartitionsToTxn');
  const record = producer.send({ topic: 't', partition: 0, value: 'never' });
  const refused = assert.rejects(record, TransactionAbortedError);
  while (gate.held.length === 0) await new Promise((r) => setImmediate(r));
  const abort = producer.abortTransaction();
  await refused;
  gate.open();
  await abort;
  assert.equal(fake.requests('Produce').length, 0);
  assert.deepEqual(flow(fake).slice(-2), ['AddPartitionsToTxn', 'EndTxn(abort)']);
});

test('sendOffsetsToTransaction: AddOffsetsToTxn to the transaction coordinator, TxnOffsetCommit with the member\'s identity to the group coordinator', { timeout: 10_000 }, async (t) => {
  const { fake, producer } = setup(t);
  await producer.initTransactions();
  producer.beginTransaction();
  const group = { groupId: 'g', generationId: 5, memberId: 'm-1', groupInstanceId: 'i-1' };
  await producer.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 10n, metadata: 'meta' }, { topic: 'in', partition: 1, offset: 4 }], group);
  await producer.commitTransaction();
  assert.deepEqual(flow(fake), ['FindCoordinator(1)', 'InitProducerId', 'AddOffsetsToTxn', 'FindCoordinator(0)', 'TxnOffsetCommit', 'EndTxn(commit)']);
  assert.equal(fake.requests('AddOffsetsToTxn')[0]!.body.groupId, 'g');
  const commit = fake.requests('TxnOffsetCommit')[0]!;
  assert.equal(commit.version, 4);
  assert.deepEqual(
    [commit.body.transactionalId, commit.body.groupId, commit.body.producerId, commit.body.generationIdOrMemberEpoch, commit.body.memberId, commit.body.groupInstanceId],
    [TXN, 'g', 7n, 5, 'm-1', 'i-1'],
  );
  // TxnOffsetCommit v4 names topics (the zero id is the decoder's default).
  assert.deepEqual(commit.body.topics, [{
    name: 'in', topicId: ZERO_UUID, partitions: [
      { partitionIndex: 0, committedOffset: 10n, committedLeaderEpoch: -1, committedMetadata: 'meta' },
      { partitionIndex: 1, committedOffset: 4n, committedLeaderEpoch: -1, committedMetadata: '' },
    ],
  }]);

  // A member the group no longer knows: the offsets cannot commit, the transaction must abort.
  producer.beginTransaction();
  fake.once('TxnOffsetCommit', (r) => ({
    throttleTimeMs: 0,
    topics: r.topics.map((tp) => ({ name: tp.name, partitions: tp.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) })),
  }));
  await assert.rejects(producer.sendOffsetsToTransaction([{ topic: 'in', partition: 0, offset: 11n }], group), TransactionAbortableError);
  assert.equal(producer.transactionState, 'ABORTABLE_ERROR');
  await producer.abortTransaction();
  assert.equal(flow(fake).at(-1), 'EndTxn(abort)');
});
