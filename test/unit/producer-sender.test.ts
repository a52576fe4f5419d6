/**
 * Producer batching, idempotence, retries and backpressure with a ManualScheduler: time
 * (linger, backoff, maxBlockMs) moves only when the test advances it. The broker is a
 * scripted fake (test/support/producer/fake-broker.ts) over real sockets; `waitFor` and
 * `ioSettles` only wait for socket I/O, never for timing logic, and never for a fixed time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Producer, type ProducerOptions, type RecordMetadata } from '../../src/index.js';
import { KafkaConnection, type BrokerConnection, type ConnectionOptions, type RequestOf, type RequestOptions } from '../../src/client/connection.js';
import type { ApiCodecs } from '../../src/protocol/messages/index.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { FakeBroker } from '../support/producer/fake-broker.js';

async function waitFor(what: string, cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/**
 * The producer's connections and requests, counted where the producer sees them (through its
 * connectionFactory): connections being opened, requests issued, and requests settled (the
 * answer read and handed back, or a failure).
 */
class RequestCounter {
  opening = 0;
  issued = 0;
  settled = 0;

  readonly connectionFactory = async (options: ConnectionOptions): Promise<BrokerConnection> => {
    this.opening++;
    let c: KafkaConnection;
    try {
      c = await KafkaConnection.connect(options);
    } finally {
      this.opening--;
    }
    const count = (answer: Promise<unknown>): void => {
      answer.then(() => { this.settled++; }, () => { this.settled++; });
    };
    const issue = (): void => { this.issued++; };
    return {
      host: c.host,
      port: c.port,
      get closed() { return c.closed; },
      supportedVersion: (api) => c.supportedVersion(api),
      request<A extends ApiCodecs>(api: A, body: RequestOf<A>, requestOptions?: RequestOptions) {
        issue();
        const answer = c.request(api, body, requestOptions);
        count(answer);
        return answer;
      },
      sendWithoutResponse: (api, body, sendOptions) => c.sendWithoutResponse(api, body, sendOptions),
      close: () => c.close(),
    };
  };
}

/**
 * Waits until the producer has heard every answer it can hear: no connection being opened,
 * each request it issued settled except the Produce answers the fake broker holds back, and a
 * few turns of the event loop (its reactions to those answers) bring no new request. Time is
 * manual, so no timer of the producer fires meanwhile; only socket I/O is awaited, however
 * long it takes (it used to be a fixed 30 ms sleep, which a loaded machine can outlast).
 */
async function ioSettled(counter: RequestCounter, broker: FakeBroker): Promise<void> {
  const quiet = (): boolean => counter.opening === 0 && counter.issued - counter.settled === broker.heldAnswers;
  for (;;) {
    await waitFor('the answers to the producer\'s requests', quiet);
    const issued = counter.issued;
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
    if (counter.issued === issued && quiet()) return;
  }
}

interface Setup {
  broker: FakeBroker;
  scheduler: ManualScheduler;
  producer: Producer;
  /** See ioSettled. */
  ioSettles: () => Promise<void>;
}

async function setup(t: { after: (fn: () => Promise<void> | void) => void }, options: Partial<ProducerOptions> = {}, topics: Record<string, number> = { t: 3 }): Promise<Setup> {
  const broker = await FakeBroker.start(topics);
  const scheduler = new ManualScheduler(1_000_000);
  const counter = new RequestCounter();
  const producer = new Producer({ bootstrapServers: broker.bootstrap, scheduler, connectionFactory: counter.connectionFactory, ...options });
  t.after(async () => {
    broker.release();
    const closing = producer.close(0);
    await scheduler.advance(0);
    await closing;
    await broker.stop();
  });
  // Warm up: metadata, InitProducerId and the connection happen over real I/O. Manual time
  // moves (by lingerMs, for the warm-up batch) only while no I/O is under way, so slow answers
  // cannot run it into maxBlockMs.
  const ioSettles = (): Promise<void> => ioSettled(counter, broker);
  const first = producer.send({ topic: Object.keys(topics)[0]!, partition: 0, value: 'warm-up' });
  let settled = false;
  void first.then(() => { settled = true; }, () => { settled = true; });
  for (;;) {
    await ioSettles();
    if (settled) break;
    await scheduler.advance(options.lingerMs ?? 5);
  }
  await first;
  return { broker, scheduler, producer, ioSettles };
}

test('linger: records wait lingerMs (manual time) and then leave as one batch', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 50 });
  const before = broker.calls.length;
  const sentAt = scheduler.nowMs();
  const sends = [0, 1, 2].map((i) => producer.send({ topic: 't', partition: 1, value: `v${i}` }));
  await scheduler.advance(49);
  await ioSettles();
  assert.equal(broker.calls.length, before, 'nothing sent before linger.ms');
  await scheduler.advance(1);
  await waitFor('produce', () => broker.calls.length === before + 1);
  const call = broker.calls[before]!;
  assert.equal(call.batches.length, 1);
  assert.equal(call.batches[0]!.batch.records.length, 3);
  const metas = await Promise.all(sends);
  assert.deepEqual(metas.map((m) => m.offset), [0n, 1n, 2n]);
  assert.ok(metas.every((m) => m.timestamp === sentAt), 'CreateTime from the scheduler clock');
});

test('batchSize: a full batch leaves at once without waiting for linger; the remainder waits', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 10_000, batchSize: 1000 });
  const before = broker.calls.length;
  const sends: Promise<RecordMetadata>[] = [];
  for (let i = 0; i < 25; i++) sends.push(producer.send({ topic: 't', partition: 2, value: 'x'.repeat(90) }));
  await waitFor('full batches', () => broker.calls.slice(before).reduce((n, c) => n + c.batches.length, 0) >= 2);
  await ioSettles();
  const sent = broker.calls.slice(before).flatMap((c) => c.batches);
  assert.ok(sent.every((b) => b.bytes.length <= 1000), 'no batch above batchSize');
  const sentRecords = sent.reduce((n, b) => n + b.batch.records.length, 0);
  assert.ok(sentRecords < 25, `the last partial batch still lingers (${sentRecords} sent)`);
  await scheduler.advance(10_000);
  const metas = await Promise.all(sends);
  assert.deepEqual(metas.map((m) => m.offset), Array.from({ length: 25 }, (_, i) => BigInt(i)));
});

test('idempotence: one producer id, per-partition sequences that advance by record count', async (t) => {
  const { broker, scheduler, producer } = await setup(t, { lingerMs: 0 });
  assert.equal(broker.initProducerIdRequests, 1);
  const before = broker.calls.length;
  for (const [partition, count] of [[0, 3], [1, 2], [0, 4], [1, 1], [0, 2]] as const) {
    const sends = Array.from({ length: count }, (_, i) => producer.send({ topic: 't', partition, value: `${partition}-${i}` }));
    await scheduler.advance(0);
    await Promise.all(sends);
  }
  const batches = broker.calls.slice(before).flatMap((c) => c.batches);
  const seqs = (p: number): number[] => batches.filter((b) => b.partition === p).map((b) => b.batch.header.baseSequence);
  assert.deepEqual(seqs(0), [1, 4, 8], 'partition 0 (after the warm-up record at 0)');
  assert.deepEqual(seqs(1), [0, 2]);
  assert.ok(batches.every((b) => b.batch.header.producerId === 1000n && b.batch.header.producerEpoch === 0));
});

test('retry: NOT_LEADER_OR_FOLLOWER refreshes metadata and resends the same bytes with the same sequence after retryBackoffMs', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 0, retryBackoffMs: 100 });
  const before = broker.calls.length;
  const metadataBefore = broker.metadataRequests;
  broker.hook = (b, call) => (call === before ? 6 : undefined);
  const sends = [producer.send({ topic: 't', partition: 0, value: 'a' }), producer.send({ topic: 't', partition: 0, value: 'b' })];
  await scheduler.advance(0);
  await waitFor('first attempt', () => broker.calls.length === before + 1);
  await ioSettles();
  await scheduler.advance(99);
  await ioSettles();
  assert.equal(broker.calls.length, before + 1, 'no resend before the backoff');
  await scheduler.advance(1);
  await waitFor('retry', () => broker.calls.length === before + 2);
  const [first, second] = [broker.calls[before]!.batches[0]!, broker.calls[before + 1]!.batches[0]!];
  assert.equal(second.batch.header.baseSequence, first.batch.header.baseSequence);
  assert.ok(second.bytes.equals(first.bytes), 'the retry is byte for byte the first attempt');
  assert.ok(broker.metadataRequests > metadataBefore, 'metadata refreshed after NOT_LEADER_OR_FOLLOWER');
  const metas = await Promise.all(sends);
  assert.deepEqual(metas.map((m) => m.offset), [1n, 2n]);
  assert.equal(broker.logOf('t', 0).length, 2);
});

test('idempotence with requests in flight: a failed first batch makes the next one OUT_OF_ORDER_SEQUENCE; both are retried in order and land once', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 0, retryBackoffMs: 10 });
  const before = broker.calls.length;
  broker.holding = true;
  broker.hook = (b, call) => (call === before ? 6 : undefined);
  const a = producer.send({ topic: 't', partition: 0, value: 'a' });
  await scheduler.advance(0);
  await waitFor('first request', () => broker.calls.length === before + 1);
  const b = producer.send({ topic: 't', partition: 0, value: 'b' });
  await scheduler.advance(0);
  await waitFor('second request in flight', () => broker.calls.length === before + 2);
  assert.equal(broker.calls[before + 1]!.batches[0]!.batch.header.baseSequence, 2);
  broker.release();
  await ioSettles();
  for (let i = 0; i < 5; i++) {
    await scheduler.advance(10);
    await ioSettles();
  }
  const metas = await Promise.all([a, b]);
  assert.deepEqual(metas.map((m) => m.offset), [1n, 2n], 'order kept');
  assert.deepEqual(broker.calls[before + 1]!.answers, [45], 'the second batch was answered OUT_OF_ORDER_SEQUENCE_NUMBER');
  assert.deepEqual(broker.logOf('t', 0).map((x) => x.batch.records[0]!.value!.toString()), ['warm-up', 'a', 'b']);
});

test('idempotence on a partition not yet acknowledged: one batch in flight until the first lands, so a failed first batch cannot be overtaken', async (t) => {
  // A broker with no state for the producer accepts any sequence (Kafka since KIP-360), so a
  // second batch sent alongside a failed first one would be written first. Seen against
  // Kafka 4.1 on a topic created a moment earlier (NOT_LEADER_OR_FOLLOWER on the first batch).
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 0, retryBackoffMs: 10 });
  const before = broker.calls.length;
  broker.holding = true;
  broker.hook = (b, call) => (call === before ? 6 : undefined);
  const a = producer.send({ topic: 't', partition: 1, value: 'a' });
  await scheduler.advance(0);
  await waitFor('first request', () => broker.calls.length === before + 1);
  const b = producer.send({ topic: 't', partition: 1, value: 'b' });
  await scheduler.advance(0);
  await ioSettles();
  assert.equal(broker.calls.length, before + 1, 'the second batch waits for the first answer');
  broker.release();
  for (let i = 0; i < 5; i++) {
    await ioSettles();
    await scheduler.advance(10);
  }
  const metas = await Promise.all([a, b]);
  assert.deepEqual(metas.map((m) => m.offset), [0n, 1n], 'order kept');
  assert.deepEqual(broker.logOf('t', 1).map((x) => x.batch.records[0]!.value!.toString()), ['a', 'b']);
  assert.deepEqual(broker.logOf('t', 1).map((x) => x.batch.header.baseSequence), [0, 1]);
});

test('OUT_OF_ORDER_SEQUENCE_NUMBER with no earlier batch unresolved (a gap on the broker): the epoch is bumped and the batch retried from sequence 0, as Java does', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 0, retryBackoffMs: 10 });
  const before = broker.calls.length;
  broker.hook = (b, call) => (call === before ? 45 : undefined);
  const send = producer.send({ topic: 't', partition: 0, value: 'after-gap' });
  await scheduler.advance(0);
  await waitFor('first attempt', () => broker.calls.length === before + 1);
  await ioSettles();
  await scheduler.advance(10);
  const meta = await send;
  assert.equal(meta.offset, 1n);
  const retry = broker.calls[broker.calls.length - 1]!.batches[0]!.batch.header;
  assert.deepEqual([retry.producerEpoch, retry.baseSequence], [1, 0]);
  assert.deepEqual(producer.producerIdAndEpoch, { producerId: 1000n, producerEpoch: 1 });
});

test('a retry of a batch the broker already wrote comes back DUPLICATE_SEQUENCE_NUMBER: success with offset -1, written once', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 0, retryBackoffMs: 10 });
  const before = broker.calls.length;
  broker.hook = (b, call) => (call === before ? { appendThenError: 7 } : undefined); // REQUEST_TIMED_OUT after the append
  const send = producer.send({ topic: 't', partition: 1, value: 'once' });
  await scheduler.advance(0);
  await waitFor('first attempt', () => broker.calls.length === before + 1);
  await ioSettles();
  await scheduler.advance(10);
  const meta = await send;
  assert.equal(meta.offset, -1n);
  assert.equal(broker.logOf('t', 1).length, 1);
});

test('backpressure: sends beyond bufferMemory wait, fail with BufferExhaustedError after maxBlockMs, and proceed once memory frees', async (t) => {
  const { broker, scheduler, producer } = await setup(t, { lingerMs: 0, bufferMemory: 4000, maxBlockMs: 500, batchSize: 1000 });
  broker.holding = true;
  const first: Promise<RecordMetadata>[] = [];
  for (let i = 0; i < 8; i++) first.push(producer.send({ topic: 't', partition: i % 3, value: 'y'.repeat(400) }));
  await scheduler.advance(0);
  const blocked = producer.send({ topic: 't', partition: 0, value: 'z'.repeat(400) });
  let blockedError: unknown;
  blocked.catch((e: unknown) => { blockedError = e; });
  await scheduler.advance(499);
  assert.equal(blockedError, undefined, 'still waiting for memory');
  await scheduler.advance(1);
  assert.equal((blockedError as { code?: string } | undefined)?.code, 'ERR_BUFFER_EXHAUSTED');
  const waiting = producer.send({ topic: 't', partition: 1, value: 'w'.repeat(400) });
  await scheduler.advance(100);
  broker.release();
  await Promise.all(first);
  await scheduler.advance(0);
  const meta = await waiting;
  assert.equal(meta.partition, 1);
});

test('unknown topic: metadata is retried until maxBlockMs, then MetadataTimeoutError; a record too large fails at once', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 0, maxBlockMs: 1000, retryBackoffMs: 100, maxRequestSize: 10_000 });
  broker.unknownTopics.add('missing');
  const metadataBefore = broker.metadataRequests;
  const send = producer.send({ topic: 'missing', value: 'v' });
  let error: unknown;
  send.catch((e: unknown) => { error = e; });
  for (let i = 0; i < 10; i++) {
    await scheduler.advance(99);
    await ioSettles();
  }
  assert.equal(error, undefined);
  await scheduler.advance(10);
  await ioSettles();
  assert.equal((error as { code?: string } | undefined)?.code, 'ERR_METADATA_TIMEOUT');
  assert.ok(broker.metadataRequests - metadataBefore >= 3, `metadata asked repeatedly (${broker.metadataRequests - metadataBefore})`);
  await assert.rejects(producer.send({ topic: 't', value: Buffer.alloc(20_000) }), { code: 'ERR_RECORD_TOO_LARGE' });
});

test('delivery timeout: a partition that keeps failing with a retriable error fails with DeliveryTimeoutError after deliveryTimeoutMs', async (t) => {
  const { broker, scheduler, producer, ioSettles } = await setup(t, { lingerMs: 0, retryBackoffMs: 100, retryBackoffMaxMs: 1000, deliveryTimeoutMs: 5000, requestTimeoutMs: 1000 });
  broker.hook = (b) => (b.partition === 2 ? 19 : undefined); // NOT_ENOUGH_REPLICAS
  const send = producer.send({ topic: 't', partition: 2, value: 'never' });
  let error: unknown;
  send.catch((e: unknown) => { error = e; });
  for (let elapsed = 0; elapsed < 6000 && error === undefined; elapsed += 250) {
    await scheduler.advance(250);
    await ioSettles();
  }
  assert.equal((error as { code?: string } | undefined)?.code, 'ERR_DELIVERY_TIMEOUT');
  assert.ok(broker.calls.filter((c) => c.batches.some((b) => b.partition === 2)).length >= 4, 'retried several times first');
  assert.equal(broker.logOf('t', 2).length, 0);
});

test('a sequenced batch that fails for good (INVALID_RECORD) leaves a gap: the epoch is bumped locally and sequences restart at 0, as Java does', async (t) => {
  const { broker, scheduler, producer } = await setup(t, { lingerMs: 0 });
  const before = broker.calls.length;
  broker.hook = (b, call) => (call === before ? 87 : undefined);
  const bad = assert.rejects(producer.send({ topic: 't', partition: 0, value: 'bad' }), { code: 'ERR_KAFKA', errorName: 'INVALID_RECORD' });
  await scheduler.advance(0);
  await bad;
  const good = producer.send({ topic: 't', partition: 0, value: 'good' });
  await scheduler.advance(0);
  const meta = await good;
  assert.equal(meta.offset, 1n);
  const header = broker.calls[broker.calls.length - 1]!.batches[0]!.batch.header;
  assert.equal(header.producerEpoch, 1);
  assert.equal(header.baseSequence, 0);
  assert.deepEqual(producer.producerIdAndEpoch, { producerId: 1000n, producerEpoch: 1 });
});
