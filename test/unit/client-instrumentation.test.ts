/**
 * Client instrumentation: the windowed statistics on a manual clock (expected values worked
 * out by hand), and over a real Brook broker the diagnostics channels and metrics()
 * snapshots, checked against what KafkaJS wrote and reads back (record counts, committed
 * offsets) and against Kafka's protocol (a new member's first JoinGroup is refused with
 * MEMBER_ID_REQUIRED).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Partitioners } from 'kafkajs';
import {
  CLIENT_CHANNELS, Consumer, ErrorCode, KafkaProtocolError, Producer, type CommitMessage, type ConsumerOptions, type FetchMessage,
  type RebalanceMessage, type RequestMessage,
} from '../../src/index.js';
import { WindowedStat } from '../../src/client/metrics.js';
import { TracedConnection } from '../../src/client/request-tracing.js';
import { ConnectionError, type BrokerConnection, type RequestOptions } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { startBrook } from '../support/brook.js';
import { createTopicWithKafkaJs, kafkaJs } from '../support/clients/kafkajs.js';

/** Collects the messages of a channel for the test's duration. */
function listen<T>(t: TestContext, name: string): T[] {
  const messages: T[] = [];
  const onMessage = (m: unknown): void => { messages.push(m as T); };
  subscribe(name, onMessage);
  t.after(() => unsubscribe(name, onMessage));
  return messages;
}

async function produceWithKafkaJs(t: TestContext, bootstrap: string, topic: string, values: string[], partition = 0): Promise<void> {
  const producer = kafkaJs(bootstrap).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  t.after(() => producer.disconnect());
  await producer.send({ topic, messages: values.map((value) => ({ value, partition })) });
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('WindowedStat: rates over the time covered (at most the 30 s window), avg and max of the window, totals forever', async () => {
  const clock = new ManualScheduler(1_000_000);
  const stat = new WindowedStat(clock);
  assert.equal(stat.ratePerSecond(), 0);
  assert.deepEqual(stat.avgMax(), { avg: null, max: null });
  stat.record(100);
  await clock.advance(5_000);
  stat.record(50);
  await clock.advance(5_000);
  // 150 over the 10 s since the stat was made; two samples.
  assert.equal(stat.ratePerSecond(), 15);
  assert.equal(stat.countPerSecond(), 0.2);
  assert.deepEqual(stat.avgMax(), { avg: 75, max: 100 });
  await clock.advance(30_000);
  // 40 s in: the window holds the last 30 s (29 whole 1 s buckets and the current one); both samples left it.
  assert.equal(stat.ratePerSecond(), 0);
  assert.deepEqual(stat.avgMax(), { avg: null, max: null });
  assert.deepEqual([stat.total, stat.count], [150, 2]);
  stat.record(30);
  await clock.advance(500);
  // The window now starts at the bucket of second 1,011,000 ms: 29.5 s covered.
  assert.equal(stat.ratePerSecond(), 30 / 29.5);
  assert.deepEqual(stat.avgMax(), { avg: 30, max: 30 });
});

test('requests: without a subscriber the traced connection hands the request through untouched (no clock read); with one, each outcome is published', async (t) => {
  let clockReads = 0;
  const clock = { nowMs: () => { clockReads++; return 1_000 + clockReads * 5; } };
  const answers: Promise<unknown>[] = [];
  const inner = {
    host: 'broker-a', port: 9092, closed: false,
    supportedVersion: () => 3,
    // What a connection records for the tracer: the correlation id when written, the response size when answered.
    request: (_api: unknown, _body: unknown, options?: RequestOptions) => {
      const answer = answers.shift()!;
      if (options?.exchange) {
        options.exchange.correlationId = 40 + answers.length;
        answer.then(() => { options.exchange!.responseBytes = 123; }, () => undefined);
      }
      return answer;
    },
    sendWithoutResponse: () => Promise.resolve(),
    close: () => undefined,
  } as unknown as BrokerConnection;
  const traced = new TracedConnection(inner, 'traced-client', clock);
  const plain = Promise.resolve({ errorCode: 0 });
  answers.push(plain);
  assert.equal(traced.request(Api.ListGroups, { statesFilter: [], typesFilter: [] }), plain);
  assert.equal(clockReads, 0);

  const messages = listen<RequestMessage>(t, CLIENT_CHANNELS.request);
  answers.push(Promise.resolve({ errorCode: 15 }), Promise.reject(new ConnectionError('gone')));
  await traced.request(Api.ListGroups, { statesFilter: [], typesFilter: [] });
  await assert.rejects(traced.request(Api.ListGroups, { statesFilter: [], typesFilter: [] }, { version: 4 }), ConnectionError);
  assert.deepEqual(messages.map((m) => ({ ...m, error: m.error?.message ?? null })), [
    { clientId: 'traced-client', broker: { host: 'broker-a', port: 9092 }, apiKey: 16, api: 'ListGroups', apiVersion: 3, correlationId: 41, responseBytes: 123, durationMs: 5, errorCode: 15, error: null },
    { clientId: 'traced-client', broker: { host: 'broker-a', port: 9092 }, apiKey: 16, api: 'ListGroups', apiVersion: 4, correlationId: 40, responseBytes: null, durationMs: 5, errorCode: null, error: 'gone' },
  ]);
});

test('a consumer: request, rebalance, fetch and commit messages, and metrics() with lag, records consumed and commit latency', { timeout: 40_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const topic = 'instrumented';
  const groupId = 'instrumented-group';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 3);
  await produceWithKafkaJs(t, broker.bootstrap, topic, Array.from({ length: 10 }, (_, i) => `value-${i}`));
  const requests = listen<RequestMessage>(t, CLIENT_CHANNELS.request);
  const rebalances = listen<RebalanceMessage>(t, CLIENT_CHANNELS.rebalance);
  const fetches = listen<FetchMessage>(t, CLIENT_CHANNELS.fetch);
  const commits = listen<CommitMessage>(t, CLIENT_CHANNELS.commit);

  const options: ConsumerOptions = { bootstrapServers: broker.bootstrap, groupId, autoOffsetReset: 'earliest', enableAutoCommit: false, maxPollRecords: 4 };
  const consumer = new Consumer({ ...options, clientId: 'instrumented-1' });
  // Closed before the broker stops (hooks run in order): a member leaving a stopped broker's group would wait out its close timeout.
  t.after(() => consumer.close({ timeoutMs: 2_000 }));
  consumer.subscribe([topic]);
  const polled = [];
  while (polled.length === 0) polled.push(...await consumer.poll({ timeoutMs: 500 }));
  assert.equal(polled.length, 4);
  assert.ok(polled.every((r) => r.partition === 0));

  const mine = rebalances.filter((m) => m.clientId === 'instrumented-1');
  assert.equal(mine.length, 1);
  const all = [0, 1, 2].map((partition) => ({ topic, partition }));
  assert.deepEqual({ ...mine[0], durationMs: 0 }, {
    clientId: 'instrumented-1', groupId, groupProtocol: 'classic', memberId: consumer.groupMetadata().memberId, generationId: consumer.groupMetadata().generationId,
    assigned: all, revoked: [], assignment: all, durationMs: 0,
  });
  assert.ok(mine[0]!.durationMs >= 0);

  const joins = requests.filter((r) => r.clientId === 'instrumented-1' && r.api === 'JoinGroup');
  assert.deepEqual(joins.slice(0, 2).map((r) => r.errorCode), [ErrorCode.MEMBER_ID_REQUIRED, ErrorCode.NONE]);
  assert.ok(joins.every((r) => r.broker.port === broker.port && r.apiVersion >= 4 && r.apiKey === 11 && r.error === null));
  const apis = new Set(requests.filter((r) => r.clientId === 'instrumented-1').map((r) => r.api));
  for (const api of ['Metadata', 'FindCoordinator', 'SyncGroup', 'OffsetFetch', 'ListOffsets', 'Fetch']) assert.ok(apis.has(api), `${api} was published`);

  const fetched = fetches.filter((f) => f.clientId === 'instrumented-1' && f.partition === 0);
  assert.equal(fetched[0]!.records, 10);
  assert.equal(fetched[0]!.highWatermark, 10n);
  assert.equal(fetched[0]!.fetchOffset, 0n);

  let metrics = consumer.metrics();
  assert.deepEqual(metrics.partitions.find((p) => p.partition === 0), { topic, partition: 0, position: 4n, highWatermark: 10n, lag: 6n });
  assert.equal(metrics.recordsConsumedTotal, 4);
  assert.equal(metrics.bytesConsumedTotal, fetched[0]!.bytes, 'the one batch the 4 records came in');
  assert.ok(metrics.recordsConsumedRate > 0);
  assert.equal(metrics.rebalanceTotal, 1);
  assert.equal(metrics.commitTotal, 0);

  // The 4 records are finished with: their partition's next offset is 4.
  await consumer.commitSync([{ topic, partition: 0, offset: 4n }]);
  const admin = kafkaJs(broker.bootstrap, 'instrumented-admin').admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const p0 = committed!.partitions.find((p) => p.partition === 0)!;
  assert.equal(p0.offset, '4');
  const myCommits = commits.filter((c) => c.clientId === 'instrumented-1');
  assert.equal(myCommits.length, 1);
  assert.equal(myCommits[0]!.error, null);
  assert.deepEqual(myCommits[0]!.offsets, [{ topic, partition: 0, offset: 4n }]);
  metrics = consumer.metrics();
  assert.equal(metrics.commitTotal, 1);
  assert.equal(metrics.commitErrorTotal, 0);
  assert.ok(metrics.commitLatencyAvgMs !== null && metrics.commitLatencyAvgMs >= 0 && metrics.commitLatencyMaxMs === metrics.commitLatencyAvgMs);

  // A second member: the first gives partitions up; between them they own each partition once.
  const second = new Consumer({ ...options, clientId: 'instrumented-2' });
  t.after(() => second.close({ timeoutMs: 2_000 }));
  second.subscribe([topic]);
  await waitFor('both members assigned', () => {
    void consumer.poll({ timeoutMs: 50 }).catch(() => undefined);
    void second.poll({ timeoutMs: 50 }).catch(() => undefined);
    return rebalances.some((m) => m.clientId === 'instrumented-2') && rebalances.filter((m) => m.clientId === 'instrumented-1').length === 2;
  });
  const [firstAgain] = rebalances.filter((m) => m.clientId === 'instrumented-1').slice(1);
  const [secondFirst] = rebalances.filter((m) => m.clientId === 'instrumented-2');
  assert.equal(firstAgain!.generationId, secondFirst!.generationId);
  const owned = [...firstAgain!.assignment, ...secondFirst!.assignment].map((tp) => tp.partition).sort();
  assert.deepEqual(owned, [0, 1, 2]);
  assert.deepEqual(firstAgain!.revoked, all.filter((tp) => !firstAgain!.assignment.some((a) => a.partition === tp.partition)));
  assert.equal(consumer.metrics().rebalanceTotal, 2);
  await Promise.all([consumer.close(), second.close()]);
});

test('consumer protocol: the rebalance message carries the member epoch', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const topic = 'instrumented-848';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 2);
  const rebalances = listen<RebalanceMessage>(t, CLIENT_CHANNELS.rebalance);
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'g-848', groupProtocol: 'consumer', clientId: 'instrumented-848' });
  t.after(() => consumer.close({ timeoutMs: 2_000 }));
  consumer.subscribe([topic]);
  await waitFor('assignment', () => {
    void consumer.poll({ timeoutMs: 50 }).catch(() => undefined);
    return rebalances.some((m) => m.clientId === 'instrumented-848');
  });
  const [message] = rebalances.filter((m) => m.clientId === 'instrumented-848');
  assert.equal(message!.groupProtocol, 'consumer');
  assert.ok(message!.generationId > 0);
  assert.equal(message!.memberId, consumer.groupMetadata().memberId);
  assert.deepEqual(message!.assigned, [{ topic, partition: 0 }, { topic, partition: 1 }]);
  await consumer.close();
});

test('a producer: metrics() counts records, bytes, batches and requests, and the records the broker refused', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const topic = 'instrumented-producer';
  const admin = kafkaJs(broker.bootstrap, 'instrumented-admin').admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, configEntries: [{ name: 'max.message.bytes', value: '500' }] }], waitForLeaders: true });
  const requests = listen<RequestMessage>(t, CLIENT_CHANNELS.request);
  const producer = new Producer({ bootstrapServers: broker.bootstrap, clientId: 'instrumented-producer', lingerMs: 50 });
  t.after(() => producer.close());
  const sends = Array.from({ length: 10 }, (_, i) => producer.send({ topic, value: `value-${i}` }));
  await Promise.all(sends);
  let metrics = producer.metrics();
  assert.equal(metrics.recordSendTotal, 10);
  assert.equal(metrics.recordErrorTotal, 0);
  const produces = requests.filter((r) => r.clientId === 'instrumented-producer' && r.api === 'Produce');
  assert.equal(metrics.requestTotal, produces.length);
  assert.ok(metrics.batchSizeMax !== null && metrics.batchSizeMax > 0 && metrics.batchSizeMax <= metrics.byteSendTotal);
  assert.ok(metrics.requestLatencyAvgMs !== null && metrics.requestLatencyAvgMs >= 0);

  // The topic's max.message.bytes refuses a 1000-byte batch: MESSAGE_TOO_LARGE, not retried.
  const refused = await producer.send({ topic, value: 'x'.repeat(1000) }).then(() => null, (e: unknown) => e);
  assert.ok(refused instanceof KafkaProtocolError && refused.errorCode === ErrorCode.MESSAGE_TOO_LARGE, String(refused));
  metrics = producer.metrics();
  assert.equal(metrics.recordErrorTotal, 1);
  assert.equal(metrics.recordSendTotal, 10);
});
