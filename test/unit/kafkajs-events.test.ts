/**
 * The instrumentation events brook/kafkajs emits beyond the everyday ones, each against KafkaJS
 * 2.2.4 on the same broker: REQUEST_TIMEOUT (admin and producer: a broker slower than the
 * request timeout) with KafkaJS's payload; REQUEST with KafkaJS's fields, its `size` (the
 * response's) checked against the same request sent by a raw client, and the handshake's
 * requests (ApiVersions, SASL) reported first; and RECEIVED_UNSUBSCRIBED_TOPICS (a KafkaJS leader deals its topics to a member that
 * subscribed to fewer), after which the member leaves those partitions alone, as KafkaJS does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { saslBroker, saslPort } from '../support/sasl-broker.js';

const T = { timeout: 120_000 };

function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

type Payload = Record<string, unknown>;

/** The payload with its volatile values replaced by their types. */
function shape(p: Payload): Payload {
  const out: Payload = {};
  for (const [k, v] of Object.entries(p)) out[k] = ['createdAt', 'sentAt', 'pendingDuration', 'correlationId', 'clientId'].includes(k) ? typeof v : v;
  return out;
}

test('REQUEST_TIMEOUT: admin and producer requests that time out, with KafkaJS 2.2.4 payloads', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const config = { brokers: [broker.bootstrap], requestTimeout: 300, retry: { retries: 2, initialRetryTime: 50 } };
  const theirs = new real.Kafka({ ...config, clientId: 'kafkajs', logLevel: real.logLevel.NOTHING });
  const ours = new Kafka({ ...config, clientId: 'brook', logLevel: logLevel.NOTHING });
  await (async () => {
    const a = theirs.admin();
    await a.connect();
    await a.createTopics({ topics: [{ topic: 'slow', numPartitions: 1 }] });
    await a.disconnect();
  })();

  const timeouts = async (client: { on(e: string, l: (e: { payload: Payload }) => void): unknown; events: { REQUEST_TIMEOUT: string } }, act: () => Promise<unknown>, api: 'Metadata' | 'Produce'): Promise<Payload> => {
    const seen: Payload[] = [];
    client.on(client.events.REQUEST_TIMEOUT, (e) => seen.push(e.payload));
    const fault = broker.injectFault({ api, delayMs: 1_000, count: 1 });
    await act().catch(() => undefined);
    await until(() => seen.length > 0, 20_000, `a ${api} REQUEST_TIMEOUT`);
    fault.remove();
    return seen[0]!;
  };

  const theirAdmin = theirs.admin();
  const ourAdmin = ours.admin();
  for (const a of [theirAdmin, ourAdmin]) {
    await a.connect();
    cleanup.add('admin', () => a.disconnect());
  }
  const theirAdminTimeout = await timeouts(theirAdmin as never, () => theirAdmin.listTopics(), 'Metadata');
  const ourAdminTimeout = await timeouts(ourAdmin as never, () => ourAdmin.listTopics(), 'Metadata');
  assert.equal(theirAdminTimeout['apiName'], 'Metadata');
  assert.deepEqual({ ...shape(ourAdminTimeout), apiVersion: theirAdminTimeout['apiVersion'] }, shape(theirAdminTimeout));

  const theirProducer = theirs.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  const ourProducer = ours.producer();
  for (const p of [theirProducer, ourProducer]) {
    await p.connect();
    cleanup.add('producer', () => p.disconnect());
  }
  const send = (p: { send(r: { topic: string; messages: { value: string }[] }): Promise<unknown> }) => () => p.send({ topic: 'slow', messages: [{ value: 'v' }] });
  const theirProduceTimeout = await timeouts(theirProducer as never, send(theirProducer), 'Produce');
  const ourProduceTimeout = await timeouts(ourProducer as never, send(ourProducer as never), 'Produce');
  assert.equal(theirProduceTimeout['apiName'], 'Produce');
  assert.deepEqual({ ...shape(ourProduceTimeout), apiVersion: theirProduceTimeout['apiVersion'] }, shape(theirProduceTimeout));
});

/** An admin client of either library, as far as these tests use it. */
interface EventAdmin {
  on(e: string, l: (e: { payload: Payload }) => void): unknown;
  events: { REQUEST: string };
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  listTopics(): Promise<string[]>;
}

/** The REQUEST payloads of an admin client's connect() and listTopics(). */
async function requestsOf(cleanup: Cleanup, client: EventAdmin): Promise<Payload[]> {
  const seen: Payload[] = [];
  client.on(client.events.REQUEST, (e) => seen.push(e.payload));
  await client.connect();
  cleanup.add('admin', () => client.disconnect());
  await client.listTopics();
  return seen;
}

test('REQUEST: the payload has KafkaJS 2.2.4\'s fields, and `size` is the response\'s size in bytes', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const config = { brokers: [broker.bootstrap], logLevel: logLevel.NOTHING };
  const theirs = await requestsOf(cleanup, new real.Kafka({ ...config, clientId: 'kafkajs', logLevel: real.logLevel.NOTHING }).admin() as never);
  const ours = await requestsOf(cleanup, new Kafka({ ...config, clientId: 'brook' }).admin() as never);
  const metadata = (events: Payload[]): Payload => events.filter((e) => e['apiName'] === 'Metadata').at(-1)!;
  const theirMetadata = metadata(theirs);
  const ourMetadata = metadata(ours);
  const sameShape = (p: Payload): Payload => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, ['apiName', 'apiKey'].includes(k) ? v : typeof v]));
  assert.deepEqual(sameShape(ourMetadata), sameShape(theirMetadata));
  assert.deepEqual(Object.keys(ourMetadata).sort(), Object.keys(theirMetadata).sort());
  // The same Metadata request (every topic) from a raw client: its response frame, less the length prefix.
  const conn = await RawConnection.connect('127.0.0.1', broker.port);
  cleanup.add('raw connection', () => conn.close());
  const exchange = await conn.exchange('Metadata', ourMetadata['apiVersion'] as number, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.equal(ourMetadata['size'], exchange!.frame.length);
  // Each request names its correlation id.
  const ids = ours.map((e) => e['correlationId'] as number);
  assert.ok(ids.every((id) => Number.isInteger(id) && id >= 0), String(ids));
  // The first request on a connection is its ApiVersions, reported as KafkaJS reports it.
  assert.equal(theirs[0]!['apiName'], 'ApiVersions');
  assert.deepEqual(sameShape(ours[0]!), sameShape(theirs[0]!));
  const versions = await conn.exchange('ApiVersions', ours[0]!['apiVersion'] as number, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  assert.equal(ours[0]!['size'], versions!.frame.length);
});

test('REQUEST: a SASL login reports ApiVersions, SaslHandshake and SaslAuthenticate before the first Metadata, as KafkaJS 2.2.4 does', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await saslBroker();
  cleanup.add('stop broker', () => broker.stop());
  const config = { brokers: [`127.0.0.1:${saslPort(broker)}`], sasl: { mechanism: 'plain' as const, username: 'bob', password: 'bob-secret' } };
  const firstRequests = async (client: EventAdmin): Promise<unknown[]> => {
    const names = (await requestsOf(cleanup, client)).map((e) => e['apiName']);
    return names.slice(0, names.indexOf('Metadata') + 1);
  };
  const theirs = await firstRequests(new real.Kafka({ ...config, clientId: 'kafkajs', logLevel: real.logLevel.NOTHING }).admin() as never);
  const ours = await firstRequests(new Kafka({ ...config, clientId: 'brook', logLevel: logLevel.NOTHING }).admin() as never);
  assert.deepEqual(theirs, ['ApiVersions', 'SaslHandshake', 'SaslAuthenticate', 'Metadata']);
  assert.deepEqual(ours, theirs);
});

test('RECEIVED_UNSUBSCRIBED_TOPICS: a KafkaJS leader deals a topic the member did not subscribe to; it is reported and left alone, as in KafkaJS 2.2.4', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = (clientId: string): real.Kafka => new real.Kafka({ brokers: [broker.bootstrap], clientId, logLevel: real.logLevel.NOTHING });
  const admin = theirs('admin').admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'wanted', numPartitions: 3 }, { topic: 'other', numPartitions: 3 }] });
  const producer = theirs('producer').producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());

  // The leader ('a-...' sorts first, KafkaJS deals the leader's topics) subscribes to both topics.
  const leader = theirs('a-leader').consumer({ groupId: 'unsubscribed', heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  cleanup.add('leader', () => leader.disconnect());
  let leading = false;
  leader.on(leader.events.GROUP_JOIN, (e) => (leading = e.payload.isLeader));
  await leader.connect();
  await leader.subscribe({ topics: ['wanted', 'other'], fromBeginning: true });
  await leader.run({ eachMessage: async () => undefined });
  await until(() => leading, 30_000, 'the KafkaJS leader');

  const reports: Record<string, Payload> = {};
  const consumed: Record<string, string[]> = { kafkajs: [], brook: [] };
  const joins: Record<string, Payload> = {};
  const theirMember = theirs('m-kafkajs').consumer({ groupId: 'unsubscribed', heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  const ourMember = new Kafka({ brokers: [broker.bootstrap], clientId: 'm-brook', logLevel: logLevel.NOTHING }).consumer({ groupId: 'unsubscribed', heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  for (const [name, c] of [['kafkajs', theirMember], ['brook', ourMember]] as const) {
    cleanup.add(name, () => c.disconnect());
    const any = c as unknown as real.Consumer;
    any.on(any.events.RECEIVED_UNSUBSCRIBED_TOPICS, (e) => (reports[name] = e.payload as unknown as Payload));
    any.on(any.events.GROUP_JOIN, (e) => (joins[name] = e.payload as unknown as Payload));
    await any.connect();
    await any.subscribe({ topics: ['wanted'], fromBeginning: true });
    await any.run({ eachMessage: async ({ topic, message }) => void consumed[name]!.push(`${topic}:${String(message.value)}`) });
  }
  await until(async () => {
    const { groups: [g] } = await admin.describeGroups(['unsubscribed']);
    return g?.state === 'Stable' && g.members.length === 3 && 'kafkajs' in reports && 'brook' in reports && 'brook' in joins && 'kafkajs' in joins;
  }, 60_000, 'three members, both reports');
  // assignedTopics: KafkaJS lists them in the order of the assignment's bytes, brook/kafkajs by name.
  const normalize = (p: Payload): Payload => ({ ...p, memberId: typeof p['memberId'], generationId: typeof p['generationId'], assignedTopics: [...(p['assignedTopics'] as string[])].sort() });
  assert.deepEqual(normalize(reports['brook']!), normalize(reports['kafkajs']!));
  assert.deepEqual(reports['kafkajs']!['topicsNotSubscribed'], ['other']);
  // GROUP_JOIN's assignment leaves the topic out, and so does consuming.
  for (const name of ['kafkajs', 'brook']) assert.deepEqual(Object.keys(joins[name]!['memberAssignment'] as object), ['wanted'], name);
  // Records come now that each member holds one partition of each topic.
  await producer.sendBatch({ topicMessages: ['wanted', 'other'].map((topic) => ({ topic, messages: [0, 1, 2].map((partition) => ({ value: `${topic}-${partition}`, partition })) })) });
  await until(() => consumed['brook']!.length > 0 && consumed['kafkajs']!.length > 0, 20_000, 'both members consume');
  assert.ok(consumed['brook']!.every((r) => r.startsWith('wanted:')), JSON.stringify(consumed));
  assert.ok(consumed['kafkajs']!.every((r) => r.startsWith('wanted:')), JSON.stringify(consumed));
  assert.deepEqual(ourMember.paused(), []);
});
