/**
 * Client options are checked when the client is constructed (Admin: when Admin.connect is
 * called, before any connection), and a bad one is a ConfigError (ERR_CONFIG) naming it:
 * millisecond options are integers from their minimum to 2^31-1 (what an int32 field and
 * Node's timers carry), enumerations take only their names, heartbeatIntervalMs stays
 * below sessionTimeoutMs, bootstrapServers is a non-empty host:port list. A value that
 * cannot be encoded must never turn into an endless join loop: it never gets past the
 * constructor. And the defaults are Kafka's documented ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import {
  Admin, ConfigError, Consumer, DeliveryTimeoutError, Producer,
  type AdminOptions, type ConsumerOptions, type ProducerOptions,
} from '../../src/index.js';
import type { BrokerConnection, ConnectionOptions } from '../../src/client/connection.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeKafka, soloGroup, type Request } from '../support/fake-kafka.js';
import { testRangeAssignor } from '../support/range-assignor.js';

const TIMEOUT = { timeout: 20_000 };
const INT32_MAX = 2 ** 31 - 1;

/** A connection factory that counts its calls and never connects: nothing may reach it in these tests. */
function noConnections(): { readonly attempts: number; readonly factory: (o: ConnectionOptions) => Promise<BrokerConnection> } {
  const counter = { attempts: 0, factory: async (_o: ConnectionOptions): Promise<BrokerConnection> => {
    counter.attempts++;
    throw new Error('no connection may be opened by a client with a bad option');
  } };
  return counter;
}

/** Each client, constructed (or connected, for Admin) with `options` on top of a valid bootstrap. */
interface Client {
  readonly name: string;
  /** Settles once the client exists (and is closed again) or its options were refused. */
  create(options: Record<string, unknown>, connectionFactory?: (o: ConnectionOptions) => Promise<BrokerConnection>): Promise<void>;
  /** Millisecond options it takes. */
  readonly msOptions: readonly string[];
}

const COMMON_MS = ['requestTimeoutMs', 'retryBackoffMs', 'connectTimeoutMs', 'defaultApiTimeoutMs', 'metadataMaxAgeMs'];

function clients(): Client[] {
  return [
    {
      name: 'Consumer',
      msOptions: [...COMMON_MS, 'sessionTimeoutMs', 'heartbeatIntervalMs', 'maxPollIntervalMs', 'rebalanceTimeoutMs', 'autoCommitIntervalMs', 'fetchMaxWaitMs'],
      create: async (o, connectionFactory = noConnections().factory) => {
        const consumer = new Consumer({ bootstrapServers: 'localhost:9092', groupId: 'g', connectionFactory, ...o } as ConsumerOptions);
        await consumer.close({ timeoutMs: 0 });
      },
    },
    {
      name: 'Producer',
      msOptions: [...COMMON_MS, 'lingerMs', 'deliveryTimeoutMs', 'retryBackoffMaxMs', 'maxBlockMs'],
      create: async (o, connectionFactory = noConnections().factory) => {
        const producer = new Producer({ bootstrapServers: 'localhost:9092', connectionFactory, ...o } as ProducerOptions);
        await producer.close(0);
      },
    },
    {
      name: 'Admin.connect',
      msOptions: COMMON_MS,
      create: async (o, connectionFactory = noConnections().factory) => {
        const admin = await Admin.connect({ bootstrapServers: 'localhost:9092', connectionFactory, ...o } as AdminOptions);
        admin.close();
      },
    },
  ];
}

/** `create(options)` fails with ConfigError whose message names `name`, and no connection was attempted. */
async function refused(client: Client, options: Record<string, unknown>, name: string): Promise<void> {
  const shown = `${client.name} ${JSON.stringify(options, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))}`;
  const conn = noConnections();
  await assert.rejects(client.create(options, conn.factory), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `${shown}: expected ConfigError, got ${String(err)}`);
    assert.equal(err.code, 'ERR_CONFIG');
    assert.ok(err.message.includes(name), `${shown}: the message names ${name}: ${err.message}`);
    return true;
  }, `${shown} was accepted`);
  assert.equal(conn.attempts, 0, `${shown}: no connection attempted`);
}

/** The Consumer and Producer constructors throw synchronously: the object never exists. */
function constructorThrows(construct: () => unknown, name: string): void {
  assert.throws(construct, (err: unknown) => err instanceof ConfigError && err.message.includes(name));
}

test('each client refuses a millisecond option that is not an integer within bounds: 1.5, -1, NaN, Infinity, a string, null', TIMEOUT, async () => {
  for (const client of clients()) {
    for (const name of client.msOptions) {
      for (const value of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, '100', null]) {
        await refused(client, { [name]: value }, name);
      }
    }
  }
  constructorThrows(() => new Consumer({ bootstrapServers: 'localhost:9092', sessionTimeoutMs: 1.5 }), 'sessionTimeoutMs');
  constructorThrows(() => new Producer({ bootstrapServers: 'localhost:9092', lingerMs: -1 }), 'lingerMs');
});

test('each client refuses requestTimeoutMs above 2^31-1 (an int32 on the wire, and the longest setTimeout); the consumer also sessionTimeoutMs', TIMEOUT, async () => {
  for (const client of clients()) await refused(client, { requestTimeoutMs: 2 ** 31 }, 'requestTimeoutMs');
  const [consumer] = clients();
  await refused(consumer!, { sessionTimeoutMs: 2 ** 31 }, 'sessionTimeoutMs');
  await refused(consumer!, { heartbeatIntervalMs: 2 ** 31 }, 'heartbeatIntervalMs');
  // The rebalance timeout is JoinGroup's int32, and JoinGroup waits it plus a 5 s margin.
  await refused(consumer!, { rebalanceTimeoutMs: INT32_MAX - 4_999 }, 'rebalanceTimeoutMs');
  await refused(consumer!, { maxPollIntervalMs: 2 ** 31 }, 'maxPollIntervalMs');
  // max.poll.interval.ms is the rebalance timeout unless that is given.
  await refused(consumer!, { maxPollIntervalMs: INT32_MAX }, 'rebalanceTimeoutMs');
  // A fetch waits fetchMaxWaitMs on the broker, and its response timer runs requestTimeoutMs beyond that.
  await refused(consumer!, { requestTimeoutMs: INT32_MAX }, 'requestTimeoutMs');
});

test('the largest values that fit are accepted', TIMEOUT, async () => {
  const [consumer, producer, admin] = clients();
  await consumer!.create({ sessionTimeoutMs: INT32_MAX, rebalanceTimeoutMs: INT32_MAX - 5_000, requestTimeoutMs: INT32_MAX, fetchMaxWaitMs: 0 });
  await producer!.create({ requestTimeoutMs: INT32_MAX, lingerMs: 0, deliveryTimeoutMs: INT32_MAX });
  // Admin.connect took the value: it went on to connect.
  await assert.rejects(admin!.create({ requestTimeoutMs: INT32_MAX }), /no connection may be opened/);
});

test('the consumer refuses heartbeatIntervalMs equal to or above sessionTimeoutMs, the default heartbeat (3 s) included', TIMEOUT, async () => {
  const [consumer] = clients();
  await refused(consumer!, { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 10_000 }, 'heartbeatIntervalMs');
  await refused(consumer!, { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 10_001 }, 'heartbeatIntervalMs');
  await refused(consumer!, { sessionTimeoutMs: 3_000 }, 'heartbeatIntervalMs');
  await consumer!.create({ sessionTimeoutMs: 10_000, heartbeatIntervalMs: 9_999 });
});

test('an unknown autoOffsetReset, isolationLevel or compression is refused; the known names are taken', TIMEOUT, async () => {
  const [consumer, producer] = clients();
  // 'smallest' is the pre-0.9 name Kafka no longer takes either.
  for (const value of ['smallest', 'EARLIEST', '', 0]) await refused(consumer!, { autoOffsetReset: value }, 'autoOffsetReset');
  for (const value of ['READ_COMMITTED', 'read-committed', '']) await refused(consumer!, { isolationLevel: value }, 'isolationLevel');
  for (const value of ['brotli', 'GZIP', '']) await refused(producer!, { compression: value }, 'compression');
  for (const autoOffsetReset of ['latest', 'earliest', 'none']) await consumer!.create({ autoOffsetReset });
  for (const isolationLevel of ['read_uncommitted', 'read_committed']) await consumer!.create({ isolationLevel });
  for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) await producer!.create({ compression });
});

test('securityProtocol and ssl: unknown protocols, ssl under PLAINTEXT, a cert without its key and a bad endpointIdentificationAlgorithm are refused; SSL reaches every connection', TIMEOUT, async () => {
  for (const client of clients()) {
    for (const securityProtocol of ['TLS', 'ssl', 'SASL_SSL', '']) await refused(client, { securityProtocol }, 'securityProtocol');
    await refused(client, { ssl: { ca: 'x' } }, 'securityProtocol');
    await refused(client, { securityProtocol: 'SSL', ssl: { cert: 'x' } }, 'ssl.cert');
    await refused(client, { securityProtocol: 'SSL', ssl: { endpointIdentificationAlgorithm: 'http' } }, 'endpointIdentificationAlgorithm');
  }
  // Taken: the connections Admin.connect opens get TLS options with the CA, every check on.
  // (The consumer and producer over TLS: test/unit/broker-tls.test.ts.)
  const admin = clients()[2]!;
  const opened = async (options: Record<string, unknown>): Promise<ConnectionOptions[]> => {
    const seen: ConnectionOptions[] = [];
    await assert.rejects(admin.create({ ...options, defaultApiTimeoutMs: 50 }, async (o) => {
      seen.push(o);
      throw new Error('no connection in this test');
    }));
    assert.ok(seen.length > 0);
    return seen;
  };
  for (const o of await opened({ securityProtocol: 'SSL', ssl: { ca: 'PEM' } })) {
    assert.equal(o.tls?.ca, 'PEM');
    assert.equal(o.tls?.rejectUnauthorized, true);
    assert.equal(o.tls?.checkServerIdentity, undefined, 'the host name is checked (Node\'s default check)');
  }
  for (const o of await opened({ securityProtocol: 'SSL', ssl: { endpointIdentificationAlgorithm: '' } })) assert.equal(typeof o.tls?.checkServerIdentity, 'function');
  for (const o of await opened({})) assert.equal(o.tls ?? null, null);
});

test('each client refuses an empty or malformed bootstrapServers before connecting', TIMEOUT, async () => {
  const bad: unknown[] = [undefined, 42, '', ' , ', 'localhost:x', 'localhost:0', 'localhost:65536', 'localhost:9092,other:'];
  for (const client of clients()) {
    for (const bootstrapServers of bad) await refused(client, { bootstrapServers }, 'bootstrapServers');
  }
});

test('A value that cannot be encoded must never turn into an endless join loop: sessionTimeoutMs 2^31 is a ConfigError at construction and nothing is ever sent', TIMEOUT, async () => {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 1);
  soloGroup(fake);
  const options: ConsumerOptions = {
    bootstrapServers: 'fake:9092', groupId: 'g', assignors: [testRangeAssignor()], scheduler, connectionFactory: fake.connectionFactory,
    // JoinGroup's sessionTimeoutMs is an int32: 2^31 cannot be encoded, and every join would fail on it.
    sessionTimeoutMs: 2 ** 31,
  };
  assert.throws(() => new Consumer(options), (err: unknown) => err instanceof ConfigError && err.code === 'ERR_CONFIG' && /sessionTimeoutMs/.test(err.message));
  await scheduler.advance(60_000);
  assert.deepEqual(fake.sent, [], 'no request ever left');
});

test('the largest sessionTimeoutMs and rebalanceTimeoutMs accepted reach JoinGroup as they are and the member joins at the first attempt', TIMEOUT, async () => {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 1);
  soloGroup(fake);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', assignors: [testRangeAssignor()], scheduler, connectionFactory: fake.connectionFactory,
    enableAutoCommit: false, sessionTimeoutMs: INT32_MAX, rebalanceTimeoutMs: INT32_MAX - 5_000,
  });
  consumer.subscribe(['t']);
  const polled = consumer.poll({ timeoutMs: 100 });
  await scheduler.advance(100);
  await polled;
  assert.deepEqual(consumer.assignment(), [{ topic: 't', partition: 0 }]);
  // The first JoinGroup only fetches a member id (MEMBER_ID_REQUIRED); the second joins.
  const joins = fake.requests('JoinGroup').map((r) => [r.body.sessionTimeoutMs, r.body.rebalanceTimeoutMs]);
  assert.deepEqual(joins, [[INT32_MAX, INT32_MAX - 5_000], [INT32_MAX, INT32_MAX - 5_000]]);
  const closing = consumer.close();
  await scheduler.advance(0);
  await closing;
});

test('the consumer\'s defaults are Kafka\'s documented ones', TIMEOUT, async () => {
  const consumer = new Consumer({ bootstrapServers: 'localhost:9092', groupId: 'g' });
  try {
    const o = consumer.options;
    assert.deepEqual({
      sessionTimeoutMs: o.sessionTimeoutMs, heartbeatIntervalMs: o.heartbeatIntervalMs, maxPollIntervalMs: o.maxPollIntervalMs,
      rebalanceTimeoutMs: o.rebalanceTimeoutMs, autoCommitIntervalMs: o.autoCommitIntervalMs, enableAutoCommit: o.enableAutoCommit,
      maxPollRecords: o.maxPollRecords, fetchMaxWaitMs: o.fetchMaxWaitMs, fetchMinBytes: o.fetchMinBytes, fetchMaxBytes: o.fetchMaxBytes,
      maxPartitionFetchBytes: o.maxPartitionFetchBytes, autoOffsetReset: o.autoOffsetReset, isolationLevel: o.isolationLevel,
      requestTimeoutMs: o.requestTimeoutMs, defaultApiTimeoutMs: o.defaultApiTimeoutMs, retryBackoffMs: o.retryBackoffMs,
      connectTimeoutMs: o.connectTimeoutMs, metadataMaxAgeMs: o.metadataMaxAgeMs,
    }, {
      // session.timeout.ms, heartbeat.interval.ms, max.poll.interval.ms (also the rebalance timeout), auto.commit.interval.ms, enable.auto.commit
      sessionTimeoutMs: 45_000, heartbeatIntervalMs: 3_000, maxPollIntervalMs: 300_000,
      rebalanceTimeoutMs: 300_000, autoCommitIntervalMs: 5_000, enableAutoCommit: true,
      // max.poll.records, fetch.max.wait.ms, fetch.min.bytes, fetch.max.bytes
      maxPollRecords: 500, fetchMaxWaitMs: 500, fetchMinBytes: 1, fetchMaxBytes: 52_428_800,
      // max.partition.fetch.bytes, auto.offset.reset, isolation.level
      maxPartitionFetchBytes: 1_048_576, autoOffsetReset: 'latest', isolationLevel: 'read_uncommitted',
      // request.timeout.ms, default.api.timeout.ms, retry.backoff.ms
      requestTimeoutMs: 30_000, defaultApiTimeoutMs: 60_000, retryBackoffMs: 100,
      // socket.connection.setup.timeout.ms, metadata.max.age.ms
      connectTimeoutMs: 10_000, metadataMaxAgeMs: 300_000,
    });
    const longPoll = new Consumer({ bootstrapServers: 'localhost:9092', maxPollIntervalMs: 600_000 });
    assert.equal(longPoll.options.rebalanceTimeoutMs, 600_000, 'the rebalance timeout follows max.poll.interval.ms');
    await longPoll.close({ timeoutMs: 0 });
  } finally {
    await consumer.close({ timeoutMs: 0 });
  }
});

/** A producer on the scripted broker (topic t, one partition) that answers InitProducerId and Produce. */
function producerOn(scheduler: ManualScheduler, options: Partial<ProducerOptions> = {}, errorCode: number = ErrorCode.NONE) {
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 1);
  fake.on('InitProducerId', () => ({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: 7n, producerEpoch: 0 }));
  let nextOffset = 0n;
  fake.on('Produce', (request: Request<'Produce'>) => ({
    throttleTimeMs: 0,
    responses: request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: errorCode === ErrorCode.NONE ? nextOffset++ : -1n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null })),
    })),
  }));
  const producer = new Producer({ bootstrapServers: 'fake:9092', scheduler, connectionFactory: fake.connectionFactory, ...options });
  return { fake, producer };
}

test('the producer\'s defaults are Kafka\'s where they can be seen: idempotence on, acks all, linger.ms 5, request.timeout.ms 30000 in the Produce request; batch.size is Brook\'s 1,000,000', TIMEOUT, async () => {
  const scheduler = new ManualScheduler(0);
  const { fake, producer } = producerOn(scheduler);
  assert.equal(producer.idempotent, true, 'enable.idempotence defaults to true');
  await producer.connect();
  const sentAt = scheduler.nowMs();
  const delivered = producer.send({ topic: 't', partition: 0, value: 'v' });
  await scheduler.advance(4);
  assert.equal(fake.requests('Produce').length, 0, 'the record lingers');
  await scheduler.advance(1);
  const [produce] = fake.requests('Produce');
  assert.ok(produce, 'linger.ms 5: sent 5 ms after the record');
  assert.equal(produce.atMs - sentAt, 5);
  assert.equal(produce.body.acks, -1, 'acks=all');
  assert.equal(produce.body.timeoutMs, 30_000, 'request.timeout.ms');
  await delivered;
  // Records of 100 kB to one partition: a batch leaves as soon as the next record would overflow 1,000,000 bytes, without waiting for linger.
  const before = fake.requests('Produce').length;
  const sends = Array.from({ length: 12 }, (_, i) => producer.send({ topic: 't', partition: 0, value: Buffer.alloc(100_000, i) }));
  await scheduler.advance(0);
  const full = fake.requests('Produce').slice(before);
  assert.equal(full.length, 1, 'one full batch left at once');
  const bytes = full[0]!.body.topicData[0]!.partitionData[0]!.records!.length;
  assert.ok(bytes <= 1_000_000 && bytes > 1_000_000 - 100_100, `the full batch is ${bytes} bytes: batch.size 1,000,000, one more record would not fit`);
  await scheduler.advance(5);
  await Promise.all(sends);
  const closing = producer.close(0);
  await scheduler.advance(0);
  await closing;
});

test('the producer\'s delivery.timeout.ms defaults to 120 s: a record the broker keeps refusing with a retriable error fails with DeliveryTimeoutError then, not before', TIMEOUT, async () => {
  const scheduler = new ManualScheduler(0);
  const { producer } = producerOn(scheduler, {}, ErrorCode.NOT_ENOUGH_REPLICAS);
  await producer.connect();
  const sentAt = scheduler.nowMs();
  let outcome: unknown = null;
  producer.send({ topic: 't', partition: 0, value: 'v' }).then(() => { outcome = 'delivered'; }, (err: unknown) => { outcome = err; });
  const seen = (): unknown => outcome;
  await scheduler.advance(119_999);
  assert.equal(seen(), null, 'still being retried just before 120 s');
  // Retries are spaced by a backoff of at most retry.backoff.max.ms (1 s): the first answer after 120 s ends it.
  await scheduler.advance(1_001);
  assert.ok(seen() instanceof DeliveryTimeoutError, `expected DeliveryTimeoutError by 121 s, got ${String(seen())}`);
  assert.ok(scheduler.nowMs() - sentAt <= 121_000);
  const closing = producer.close(0);
  await scheduler.advance(0);
  await closing;
});
