/**
 * The broker's metrics endpoint, read as Prometheus reads it:
 * - a KafkaJS group that committed fewer offsets than were produced: its lag is what the
 *   test produced minus what KafkaJS committed; members, state and rebalances follow the
 *   members joining and leaving (KafkaJS's GROUP_JOIN events count the generations);
 *   requests by API match the requests KafkaJS's own instrumentation saw answered;
 * - a consumer-protocol group (Brook's client), a simple group whose id needs escaping, a
 *   compacted topic after a log cleaner pass, a file engine's fsyncs: every metric kind;
 * - each scrape validated by Prometheus's `promtool check metrics` (a subtest, skipped with the
 *   reason when promtool is not installed; CI installs it);
 * - /health 200 while serving, 503 once stopping, gone after stop; a taken metrics port fails
 *   the start and releases everything it opened.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { Partitioners, type Consumer as KafkaJsConsumer } from 'kafkajs';
import { spawnBrook, startBrook, tempDir } from '../support/brook.js';
import { kafkaJs, createTopicWithKafkaJs } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';
import { httpGet, parseExposition, promtoolAvailable, promtoolCheck, PROMTOOL_MISSING, sampleValue, type Sample } from '../support/prometheus.js';
import { Broker } from '../../src/broker/broker.js';
import { MetricsServer } from '../../src/broker/metrics/metrics-server.js';
import { Consumer, Producer } from '../../src/index.js';
import { silentLogger } from '../../src/util/log.js';

const TIMEOUT = { timeout: 90_000 };
const HAS_PROMTOOL = promtoolAvailable();

/** Kafka's API keys and names (the protocol guide's table), for KafkaJS's request events. */
const KAFKA_API_NAMES: Readonly<Record<number, string>> = { 0: 'Produce', 1: 'Fetch', 8: 'OffsetCommit', 11: 'JoinGroup', 12: 'Heartbeat', 13: 'LeaveGroup', 14: 'SyncGroup' };

async function scrape(port: number): Promise<{ text: string; samples: Sample[] }> {
  const r = await httpGet(port, '/metrics');
  assert.equal(r.status, 200);
  assert.equal(r.contentType, 'text/plain; version=0.0.4; charset=utf-8');
  return { text: r.body, samples: parseExposition(r.body) };
}

/** promtool finds nothing to say (no lint problem, exit 0). */
async function assertPromtoolAccepts(text: string): Promise<void> {
  const r = await promtoolCheck(text);
  assert.deepEqual([r.code, r.output], [0, ''], 'promtool check metrics');
}

function groupStates(samples: readonly Sample[], group: string): string[] {
  return samples.filter((s) => s.name === 'brook_group_state' && s.labels['group'] === group && s.value === 1).map((s) => s.labels['state']!);
}

test('a KafkaJS group behind on its commits: lag, members, state and rebalances as the clients saw them, requests by API', TIMEOUT, async (t) => {
  /** Scrapes for promtool, checked at the end. */
  const scrapes: string[] = [];
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ metricsPort: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const port = broker.metricsPort!;
  const topic = 'metrics-lag';
  const group = 'metrics-lag-group';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 2);

  // Every request KafkaJS's instrumentation saw answered, by API key.
  const answered = new Map<number, number>();
  const kafka = kafkaJs(broker.bootstrap, 'metrics-test');
  const track = (client: { on(event: string, listener: (e: { payload: { apiKey: number } }) => void): unknown }, event: string): void => {
    client.on(event, (e) => answered.set(e.payload.apiKey, (answered.get(e.payload.apiKey) ?? 0) + 1));
  };

  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  track(producer, producer.events.REQUEST);
  await producer.connect();
  cleanup.add('producer disconnect', () => producer.disconnect());
  await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ partition: 0, value: `zero-${i}` })) });
  await producer.send({ topic, messages: Array.from({ length: 6 }, (_, i) => ({ partition: 1, value: `one-${i}` })) });
  await producer.disconnect();

  const joins = [0, 0];
  const consumers: KafkaJsConsumer[] = [];
  const startConsumer = async (i: number): Promise<KafkaJsConsumer> => {
    const c = kafka.consumer({ groupId: group, sessionTimeout: 6_000, heartbeatInterval: 300, rebalanceTimeout: 10_000, maxWaitTimeInMs: 100 });
    track(c, c.events.REQUEST);
    c.on(c.events.GROUP_JOIN, () => void joins[i]!++);
    consumers.push(c);
    cleanup.add(`consumer ${i} disconnect`, () => c.disconnect());
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    await c.run({ autoCommit: false, eachMessage: async () => undefined });
    return c;
  };

  const first = await startConsumer(0);
  await until('the first consumer joined', 20_000, async () => (joins[0]! >= 1 ? true : undefined));
  await first.commitOffsets([{ topic, partition: 0, offset: '4' }, { topic, partition: 1, offset: '6' }]);

  let m = await scrape(port);
  const lagOf = (samples: readonly Sample[], partition: number): number | undefined => sampleValue(samples, 'brook_group_lag', { group, topic, partition: String(partition) });
  assert.equal(lagOf(m.samples, 0), 10 - 4, 'partition 0: 10 records produced, offset 4 committed');
  assert.equal(lagOf(m.samples, 1), 0, 'partition 1: 6 produced, 6 committed');
  assert.equal(sampleValue(m.samples, 'brook_group_committed_offset', { group, topic, partition: '0' }), 4);
  assert.equal(sampleValue(m.samples, 'brook_partition_log_end_offset', { topic, partition: '0' }), 10);
  assert.equal(sampleValue(m.samples, 'brook_partition_log_end_offset', { topic, partition: '1' }), 6);
  assert.equal(sampleValue(m.samples, 'brook_group_members', { group }), 1);
  assert.deepEqual(groupStates(m.samples, group), ['Stable']);
  assert.equal(sampleValue(m.samples, 'brook_group_rebalances_total', { group }), joins[0], 'one rebalance per generation the member joined');
  assert.equal(sampleValue(m.samples, 'brook_topic_records_in_total', { topic }), 16);
  assert.ok(sampleValue(m.samples, 'brook_topic_bytes_in_total', { topic })! > 0);
  scrapes.push(m.text);

  // A second member: both rejoin into a new generation.
  const second = await startConsumer(1);
  await until('both consumers in a new generation', 20_000, async () => (joins[0]! >= 2 && joins[1]! >= 1 ? true : undefined));
  m = await scrape(port);
  assert.equal(sampleValue(m.samples, 'brook_group_members', { group }), 2);
  assert.deepEqual(groupStates(m.samples, group), ['Stable']);
  assert.equal(sampleValue(m.samples, 'brook_group_rebalances_total', { group }), joins[0]);

  // It leaves (LeaveGroup): the first rejoins alone.
  await second.disconnect();
  await until('the first consumer rejoined alone', 20_000, async () => (joins[0]! >= 3 ? true : undefined));
  m = await scrape(port);
  assert.equal(sampleValue(m.samples, 'brook_group_members', { group }), 1);
  assert.deepEqual(groupStates(m.samples, group), ['Stable']);
  assert.equal(sampleValue(m.samples, 'brook_group_rebalances_total', { group }), joins[0]);
  assert.equal(lagOf(m.samples, 0), 6, 'the lag stays until the group commits');

  // The last member leaves: the group rebalances to Empty (Kafka: PreparingRebalance, then
  // Empty with the next generation), its offsets and lag stay.
  await first.disconnect();
  // The broker may take up the leave before it sees the connection close.
  m = await until('the group Empty and every connection closed', 10_000, async () => {
    const s = await scrape(port);
    return groupStates(s.samples, group)[0] === 'Empty' && sampleValue(s.samples, 'brook_connections_open') === 0 ? s : undefined;
  });
  assert.equal(sampleValue(m.samples, 'brook_group_members', { group }), 0);
  assert.equal(sampleValue(m.samples, 'brook_group_rebalances_total', { group }), joins[0]! + 1);
  assert.equal(lagOf(m.samples, 0), 6);
  assert.ok(sampleValue(m.samples, 'brook_topic_bytes_out_total', { topic })! > 0, 'the consumers fetched the records');

  // Requests by API: every client is gone, so each request KafkaJS saw answered was counted.
  const requests = (api: string): number | undefined => sampleValue(m.samples, 'brook_requests_total', { api });
  for (const key of [0, 8, 11, 14]) {
    const api = KAFKA_API_NAMES[key]!;
    assert.equal(requests(api), answered.get(key), `${api}: Brook counted the requests KafkaJS got answers to`);
    assert.equal(sampleValue(m.samples, 'brook_request_duration_seconds_count', { api }), answered.get(key), `${api}: one duration per request`);
  }
  assert.equal(requests('LeaveGroup'), 2, 'each consumer left once');
  // Fetches and heartbeats in flight when a consumer disconnected were counted, not answered.
  for (const key of [1, 12]) assert.ok(requests(KAFKA_API_NAMES[key]!)! >= answered.get(key)!, KAFKA_API_NAMES[key]);
  assert.equal(requests('ConsumerGroupHeartbeat'), 0, 'an API nobody used is listed at 0');
  assert.equal(sampleValue(m.samples, 'brook_connections_open'), 0);
  assert.ok(sampleValue(m.samples, 'brook_connections_accepted_total')! >= 3);
  scrapes.push(m.text);

  await t.test('both scrapes pass promtool check metrics', { skip: HAS_PROMTOOL ? false : PROMTOOL_MISSING }, async () => {
    for (const text of scrapes) await assertPromtoolAccepts(text);
  });
});

test('every kind of metric passes promtool: a consumer-protocol group, a group id needing escapes, a log cleaner pass, fsyncs', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  // The one cleaner pass is the test's own: the periodic one (every 15 s) would add another on a slow run.
  const broker = await startBrook({ dataDir: dir.path, metricsPort: 0, logCleanerEnable: false });
  cleanup.add('stop broker', () => broker.stop());
  const port = broker.metricsPort!;
  broker.createTopic('metrics-cg', 2);
  broker.createTopic('metrics-compacted', 1, { configs: { 'cleanup.policy': 'compact', 'segment.bytes': '1048576', 'min.cleanable.dirty.ratio': '0.01', 'internal.segment.bytes': '200' } });

  const producer = new Producer({ bootstrapServers: broker.bootstrap, clientId: 'metrics-producer' });
  cleanup.add('close producer', () => producer.close());
  for (let i = 0; i < 8; i++) await producer.send({ topic: 'metrics-cg', partition: i % 2, value: Buffer.from(`v${i}`) });
  for (let i = 0; i < 40; i++) await producer.send({ topic: 'metrics-compacted', partition: 0, key: Buffer.from(`k${i % 4}`), value: Buffer.from(`value-${i}`) });
  await producer.close();

  // A consumer-protocol member commits fewer than it could.
  const consumer = new Consumer({ bootstrapServers: broker.bootstrap, groupId: 'metrics-cg-group', groupProtocol: 'consumer', clientId: 'metrics-cg', autoOffsetReset: 'earliest', enableAutoCommit: false, fetchMaxWaitMs: 50 });
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['metrics-cg']);
  await until('the consumer has both partitions', 20_000, async () => {
    await consumer.poll({ timeoutMs: 50 });
    return consumer.assignment().length === 2 ? true : undefined;
  });
  await consumer.commitSync([{ topic: 'metrics-cg', partition: 0, offset: 1n }, { topic: 'metrics-cg', partition: 1, offset: 4n }]);

  // A simple group (commits without membership) whose id needs escaping in a label value.
  const weird = 'we"ird\\group\nid';
  const simple = new Consumer({ bootstrapServers: broker.bootstrap, groupId: weird, clientId: 'metrics-simple', enableAutoCommit: false });
  cleanup.add('close simple consumer', () => simple.close());
  simple.assign([{ topic: 'metrics-cg', partition: 0 }]);
  await simple.commitSync([{ topic: 'metrics-cg', partition: 0, offset: 3n }]);
  await simple.close();

  const pass = await broker.runCleaner();
  assert.ok(pass.partitionsCleaned >= 1, 'the compacted topic was cleaned');

  const { text, samples } = await scrape(port);
  const cg = 'metrics-cg-group';
  assert.deepEqual(groupStates(samples, cg), ['Stable']);
  assert.equal(sampleValue(samples, 'brook_group_members', { group: cg }), 1);
  // Kafka 4.4 starts a group at epoch 1; the member joining bumps it: one rebalance.
  assert.equal(sampleValue(samples, 'brook_group_generation', { group: cg }), consumer.groupMetadata().generationId);
  assert.equal(sampleValue(samples, 'brook_group_rebalances_total', { group: cg }), 1);
  // The flight recorder's: one rebalance to Stable, in which the member got both partitions.
  assert.equal(sampleValue(samples, 'brook_group_rebalance_time_to_stable_seconds_count', { group: cg }), 1);
  assert.equal(sampleValue(samples, 'brook_group_rebalance_time_to_stable_seconds_bucket', { group: cg, le: '+Inf' }), 1);
  assert.equal(sampleValue(samples, 'brook_group_partitions_moved_total', { group: cg }), consumer.assignment().length);
  assert.equal(sampleValue(samples, 'brook_group_lag', { group: cg, topic: 'metrics-cg', partition: '0' }), 4 - 1);
  assert.equal(sampleValue(samples, 'brook_group_lag', { group: cg, topic: 'metrics-cg', partition: '1' }), 4 - 4);
  assert.deepEqual(samples.filter((s) => s.name === 'brook_group_state' && s.labels['group'] === cg).map((s) => s.labels['state']).sort(),
    ['Assigning', 'Dead', 'Empty', 'Reconciling', 'Stable'], 'a consumer group\'s states');
  assert.equal(sampleValue(samples, 'brook_group_lag', { group: weird, topic: 'metrics-cg', partition: '0' }), 4 - 3, 'the id comes back unescaped');
  assert.deepEqual(groupStates(samples, weird), ['Empty']);

  assert.equal(sampleValue(samples, 'brook_log_cleaner_passes_total'), 1);
  assert.equal(sampleValue(samples, 'brook_log_cleaner_records_removed_total'), pass.recordsRemoved);
  assert.equal(sampleValue(samples, 'brook_log_cleaner_last_pass_bytes_before'), pass.bytesBefore);
  assert.equal(sampleValue(samples, 'brook_log_cleaner_last_pass_bytes_after'), pass.bytesAfter);
  assert.ok(sampleValue(samples, 'brook_log_cleaner_last_pass_duration_seconds')! >= 0);
  const fsyncRounds = sampleValue(samples, 'brook_storage_flush_rounds_total')!;
  assert.ok(fsyncRounds > 0, 'acks=all appends were fsynced');
  assert.equal(sampleValue(samples, 'brook_storage_flush_duration_seconds_count'), fsyncRounds, 'one duration per round');
  assert.equal(sampleValue(samples, 'brook_storage_flush_duration_seconds_bucket', { le: '+Inf' }), fsyncRounds);
  assert.ok(sampleValue(samples, 'process_resident_memory_bytes')! > 0);

  if (!HAS_PROMTOOL) {
    t.skip(PROMTOOL_MISSING);
    return;
  }
  await assertPromtoolAccepts(text);
  // And promtool does complain about a broken exposition (the check can fail).
  const broken = await promtoolCheck(`${text}brook_group_lag{group="x" 1\n`);
  assert.notEqual(broken.code, 0);
});

test('/health: 200 while the broker serves, 503 before and once stopping, gone after stop; HEAD, 404 and 405', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  // The endpoint on its own, through the broker's lifecycle.
  const server = await MetricsServer.listen('127.0.0.1', 0, silentLogger);
  cleanup.add('close metrics server', () => server.close());
  assert.deepEqual(await httpGet(server.port, '/health').then((r) => [r.status, r.body]), [503, 'starting\n']);
  assert.equal((await httpGet(server.port, '/metrics')).status, 503);

  const broker = await startBrook({ metricsPort: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const port = broker.metricsPort!;
  assert.deepEqual(await httpGet(port, '/health').then((r) => [r.status, r.body]), [200, 'ok\n']);
  const head = await httpGet(port, '/metrics', 'HEAD');
  assert.deepEqual([head.status, head.body], [200, '']);
  assert.equal((await httpGet(port, '/metrics', 'POST')).status, 405);
  assert.equal((await httpGet(port, '/nothing-here')).status, 404);

  server.markStopping();
  assert.deepEqual(await httpGet(server.port, '/health').then((r) => [r.status, r.body]), [503, 'stopping\n']);

  await broker.stop();
  await assert.rejects(httpGet(port, '/health'), /ECONNREFUSED/, 'the endpoint stops with the broker');
});

test('bin/brook broker --metrics-port 0 --log-format json: the metrics line on stdout, JSON log lines on stderr, /health until SIGTERM', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const broker = await spawnBrook(['--port', '0', '--data-dir', dir.path, '--metrics-port', '0', '--log-format', 'json']);
  cleanup.add('kill broker', () => broker.kill());
  const port = await until('the metrics line', 10_000, async () => {
    const m = /^brook broker metrics at http:\/\/127\.0\.0\.1:(\d+)\/metrics$/m.exec(broker.stdout());
    return m === null ? undefined : Number(m[1]);
  });
  assert.equal((await httpGet(port, '/health')).status, 200);
  const started = broker.stderr().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'started');
  assert.deepEqual([started?.['level'], started?.['logger'], started?.['listeners'], started?.['metricsPort']], ['info', 'broker', `PLAINTEXT://127.0.0.1:${broker.port}`, port]);
  assert.equal(await broker.stop(), 0);
  await assert.rejects(httpGet(port, '/health'), /ECONNREFUSED/);
});

test('a metrics port already taken fails the start and releases what it opened (the data directory can be opened again)', TIMEOUT, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  const blocker: Server = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  cleanup.add('close blocker', () => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const taken = (blocker.address() as { port: number }).port;

  await assert.rejects(Broker.start({ host: '127.0.0.1', port: 0, dataDir: dir.path, metricsPort: taken, log: silentLogger }), /EADDRINUSE/);
  const broker = await startBrook({ dataDir: dir.path, metricsPort: 0 });
  cleanup.add('stop broker', () => broker.stop());
  assert.notEqual(broker.metricsPort, taken);
  assert.equal((await httpGet(broker.metricsPort!, '/health')).status, 200);
});
