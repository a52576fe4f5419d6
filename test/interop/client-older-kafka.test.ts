/**
 * Brook's client against an older Apache Kafka: 4.1.2 (single-node KRaft, started by
 * test/support/kafka with `kafkaVersion`; its classpath from `build.sh --kafka-version 4.1.2`).
 * Brook's client asks ApiVersions at v5, Kafka 4.4's newest; Kafka 4.1 knows it up to v4, so
 * it answers at version 0 with UNSUPPORTED_VERSION and its own ranges, and the client asks
 * again at v4 (src/protocol/frame.ts reads that v0 answer, as Kafka's ApiVersionsResponse.parse
 * does; src/client/connection.ts asks again). Every client here bootstraps through a TCP proxy
 * that notes each request's api key and version and each ApiVersions answer's error code,
 * read from the bytes on the wire, not by Brook's codecs: Kafka's answers prove the fallback
 * ran. Then Admin creates a topic, the Producer writes to it, a Consumer in a group (the
 * classic protocol, and the consumer protocol, which Kafka 4.1 serves by default) reads every
 * record and commits, and the committed offsets read back equal the records produced.
 */
import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { Admin, CLIENT_CHANNELS, Consumer, Producer, type GroupProtocol, type RequestMessage } from '../../src/index.js';
import { KafkaConnection } from '../../src/client/connection.js';
import { capVersion } from '../../src/client/version-caps.js';
import { Api, apiCodecs } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { kafkaAvailable, startKafka, type KafkaBroker } from '../support/kafka/kafka-broker.js';
import { rawRequest } from '../support/kafka/raw-client.js';

/** Also in .ci/run, which resolves its classpath before the suite runs. */
const KAFKA_VERSION = '4.1.2';
const API_VERSIONS_KEY = Api.ApiVersions.apiKey;
const UNSUPPORTED_VERSION = 35;
const PARTITIONS = 3;
const PER_PARTITION = 50;

/** One request seen on the wire; `errorCode` of an ApiVersions answer once it came back. */
interface WireRequest { apiKey: number; apiVersion: number; correlationId: number; errorCode?: number }

/** Calls `handle` with each size-prefixed frame of a byte stream (the bytes themselves are forwarded as they come). */
function frames(handle: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const size = pending.readInt32BE(0);
      handle(pending.subarray(4, 4 + size));
      pending = pending.subarray(4 + size);
    }
  };
}

/**
 * A TCP proxy to Kafka that notes, per connection, every request's api key and version (a
 * request header starts with both, as int16s) and the error code of every ApiVersions answer
 * (its response header is always v0, and error_code is the body's first field in every
 * version: int32 correlation id, then int16 error code).
 */
class RecordingProxy {
  readonly connections: WireRequest[][] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(targetHost: string, targetPort: number): Promise<RecordingProxy> {
    let proxy: RecordingProxy | null = null;
    const server = createServer((client) => proxy!.accept(client, targetHost, targetPort));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    proxy = new RecordingProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  private accept(client: Socket, host: string, port: number): void {
    const seen: WireRequest[] = [];
    this.connections.push(seen);
    const upstream = netConnect({ host, port });
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', frames((f) => seen.push({ apiKey: f.readInt16BE(0), apiVersion: f.readInt16BE(2), correlationId: f.readInt32BE(4) })));
    upstream.on('data', frames((f) => {
      const request = seen.find((r) => r.correlationId === f.readInt32BE(0));
      if (request?.apiKey === API_VERSIONS_KEY) request.errorCode = f.readInt16BE(4);
    }));
    client.pipe(upstream);
    upstream.pipe(client);
  }

  close(): void {
    for (const s of this.sockets) s.destroy();
    this.server.close();
  }
}

let started: Promise<{ kafka: KafkaBroker; proxy: RecordingProxy; ranges: Map<number, { min: number; max: number }> }> | null = null;

/** One Kafka 4.1.2 broker for the whole file (stopped in after()), its proxy, and its ApiVersions ranges. */
function olderKafka(t: TestContext): ReturnType<typeof startOnce> {
  started ??= startOnce(t);
  return started;
}

async function startOnce(t: TestContext): Promise<{ kafka: KafkaBroker; proxy: RecordingProxy; ranges: Map<number, { min: number; max: number }> }> {
  // The interop suite's contract is that its peers are installed (.ci/run does it): no silent skips.
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const kafka = await startKafka({
    kafkaVersion: KAFKA_VERSION,
    // Short consumer-protocol heartbeats, so the consumer-protocol member gets its assignment in a second, not five.
    config: { 'group.consumer.heartbeat.interval.ms': '500', 'group.consumer.min.heartbeat.interval.ms': '100' },
  });
  t.diagnostic(`Kafka ${kafka.kafkaVersion} at ${kafka.bootstrap}: format ${kafka.formatMs} ms, start-up ${kafka.startupMs} ms`);
  // Kafka's own ranges (the oracle), asked at a version it knows.
  const versions = await rawRequest(kafka.host, kafka.port, 'ApiVersions', 3, { clientSoftwareName: 'brook-test', clientSoftwareVersion: '0' });
  assert.equal(versions.errorCode, 0);
  const ranges = new Map(versions.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
  const proxy = await RecordingProxy.start(kafka.host, kafka.port);
  return { kafka, proxy, ranges };
}

after(async () => {
  if (started === null) return;
  const { kafka, proxy } = await started;
  proxy.close();
  await kafka.stop();
});

/** Each of the proxy's connections from `from` on opened with ApiVersions v5 (UNSUPPORTED_VERSION), then v4 (no error). */
function assertFellBack(proxy: RecordingProxy, from: number, kafkaMax: number): void {
  const opened = proxy.connections.slice(from);
  assert.ok(opened.length > 0, 'the client connected through the proxy');
  for (const seen of opened) {
    assert.deepEqual(seen.slice(0, 2).map((r) => [r.apiKey, r.apiVersion, r.errorCode]), [
      [API_VERSIONS_KEY, Api.ApiVersions.request.highestVersion, UNSUPPORTED_VERSION],
      [API_VERSIONS_KEY, kafkaMax, 0],
    ]);
  }
}

test(`Kafka ${KAFKA_VERSION} answers ApiVersions v5 with UNSUPPORTED_VERSION; Brook's connection asks again at Kafka's newest and takes Kafka's ranges`, { timeout: 120_000 }, async (t) => {
  const { kafka, proxy, ranges } = await olderKafka(t);
  const kafkaMax = ranges.get(API_VERSIONS_KEY)!.max;
  assert.ok(kafkaMax < Api.ApiVersions.request.highestVersion, `Kafka ${KAFKA_VERSION} knows ApiVersions up to v${kafkaMax}, below the client's v${Api.ApiVersions.request.highestVersion}`);
  const from = proxy.connections.length;
  const connection = await KafkaConnection.connect({ host: kafka.host, port: proxy.port, requestTimeoutMs: 10_000 });
  try {
    assertFellBack(proxy, from, kafkaMax);
    // Every API both sides know: the version the client will send comes from Kafka's ranges.
    const below: string[] = [];
    for (const [apiKey, theirs] of ranges) {
      const api = apiCodecs(apiKey);
      if (api === undefined) continue;
      const low = Math.max(theirs.min, api.request.lowestVersion);
      const high = capVersion(api, Math.min(theirs.max, api.request.highestVersion));
      assert.equal(connection.supportedVersion(api), high >= low ? high : undefined, api.name);
      if (theirs.max < api.request.highestVersion) below.push(`${api.name} v${theirs.max} (client v${api.request.highestVersion})`);
    }
    t.diagnostic(`negotiated ApiVersions v${connection.supportedVersion(Api.ApiVersions)}; APIs Kafka ${KAFKA_VERSION} stops below the client's newest: ${below.join(', ')}`);
  } finally {
    connection.close();
  }
});

for (const groupProtocol of ['classic', 'consumer'] as const satisfies readonly GroupProtocol[]) {
  test(`Kafka ${KAFKA_VERSION}, ${groupProtocol} protocol: Admin creates a topic, the Producer writes, a Consumer in a group reads every record and commits, the offsets read back`, { timeout: 120_000 }, async (t) => {
    const { proxy, ranges } = await olderKafka(t);
    const sent: RequestMessage[] = [];
    const onRequest = (m: unknown): void => { sent.push(m as RequestMessage); };
    subscribe(CLIENT_CHANNELS.request, onRequest);
    t.after(() => unsubscribe(CLIENT_CHANNELS.request, onRequest));
    const from = proxy.connections.length;
    const topic = `older-${groupProtocol}`;
    const group = `older-${groupProtocol}-group`;
    const bootstrapServers = proxy.bootstrap;
    const began = performance.now();

    const admin = await Admin.connect({ bootstrapServers });
    const producer = new Producer({ bootstrapServers });
    const consumer = new Consumer({ bootstrapServers, groupId: group, groupProtocol, autoOffsetReset: 'earliest', enableAutoCommit: false, fetchMaxWaitMs: 100 });
    try {
      await admin.createTopic({ name: topic, partitions: PARTITIONS, replicationFactor: 1, configs: {} });
      const records = Array.from({ length: PARTITIONS * PER_PARTITION }, (_, n) => ({ partition: Math.floor(n / PER_PARTITION), i: n % PER_PARTITION }));
      const expected = new Map(records.map(({ partition, i }) => [`${partition}:${i}`, `p${partition}-${i}`]));
      const metadata = await Promise.all(records.map(({ partition, i }) => producer.send({ topic, partition, key: `k${i}`, value: `p${partition}-${i}` })));
      // Kafka's offsets: 0..49 in each partition, in the order sent.
      assert.deepEqual(metadata.map((m) => `${m.partition}:${m.offset}`), [...expected.keys()]);

      consumer.subscribe([topic]);
      const read = new Map<string, string>();
      const deadline = Date.now() + 60_000;
      while (read.size < expected.size && Date.now() < deadline) {
        for (const r of await consumer.poll({ timeoutMs: 200 })) {
          const id = `${r.partition}:${r.offset}`;
          assert.ok(!read.has(id), `${id} read twice`);
          read.set(id, r.value?.toString('utf8') ?? '');
        }
      }
      assert.deepEqual(read, expected, `every record once (read ${read.size} of ${expected.size}; assignment ${JSON.stringify(consumer.assignment())})`);
      assert.ok(consumer.groupMetadata().generationId > 0, `a ${groupProtocol} member of Kafka's group`);
      // The records of a poll count as consumed at the next poll: one more (nothing is
      // left) finishes the last batch, and commitSync() without offsets then commits it.
      assert.deepEqual(await consumer.poll({ timeoutMs: 0 }), []);
      await consumer.commitSync();

      const partitions = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition }));
      const atEnd = new Map(partitions.map((tp) => [`${topic}:${tp.partition}`, BigInt(PER_PARTITION)]));
      assert.deepEqual(await consumer.committed(partitions), atEnd, 'the consumer reads its commits back');
      assert.deepEqual(await admin.logEndOffsets(partitions), atEnd, 'Kafka\'s log ends');
      await consumer.close();
      const committed = await admin.committedOffsets(group);
      assert.deepEqual(new Map(committed.filter((c) => c.topic === topic).map((c) => [`${c.topic}:${c.partition}`, c.offset])), atEnd, 'Admin reads the group\'s commits back');
      t.diagnostic(`${groupProtocol}: ${expected.size} records produced, read and committed in ${Math.round(performance.now() - began)} ms`);
    } finally {
      await consumer.close().catch(() => undefined);
      await producer.close().catch(() => undefined);
      admin.close();
    }

    // Every client opened its bootstrap connection through the proxy, each with the fallback.
    assertFellBack(proxy, from, ranges.get(API_VERSIONS_KEY)!.max);
    // What the clients sent, by API: each version within Kafka 4.1's range (the client's
    // sends, as its request channel reports them; Kafka rejects any other). The exception is
    // each connection's first ApiVersions, at the client's newest: Kafka answers it with
    // UNSUPPORTED_VERSION and its ranges (checked through the proxy above).
    const used = new Map<string, Set<number>>();
    for (const m of sent) {
      if (m.apiKey === API_VERSIONS_KEY && m.errorCode === ErrorCode.UNSUPPORTED_VERSION) continue;
      const theirs = ranges.get(m.apiKey);
      assert.ok(theirs !== undefined && m.apiVersion >= theirs.min && m.apiVersion <= theirs.max, `${m.api} v${m.apiVersion} outside Kafka ${KAFKA_VERSION}'s range ${JSON.stringify(theirs)}`);
      let versions = used.get(m.api);
      if (versions === undefined) used.set(m.api, (versions = new Set()));
      versions.add(m.apiVersion);
    }
    assert.ok(sent.some((m) => m.apiKey === API_VERSIONS_KEY && m.errorCode === ErrorCode.UNSUPPORTED_VERSION), 'the request channel reports the refused ApiVersions too');
    if (groupProtocol === 'consumer') assert.ok(used.has('ConsumerGroupHeartbeat') && !used.has('JoinGroup'), 'the consumer protocol ran');
    else assert.ok(used.has('JoinGroup') && used.has('SyncGroup'), 'the classic protocol ran');
    t.diagnostic(`requests: ${[...used].map(([api, v]) => `${api} v${[...v].join('/')}`).join(', ')}`);
  });
}
