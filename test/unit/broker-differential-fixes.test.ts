/**
 * What the differential tests against Apache Kafka (4.1.2, since 4.4.0; test/interop/broker-differential)
 * found and Brook now does as Kafka does, checked cheaply in process: one broker with memory
 * storage, raw requests.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { FetchRequestData } from '../../src/protocol/messages/fetch.js';
import type { ProduceRequestData } from '../../src/protocol/messages/produce.js';

const T0 = 1_700_000_000_000;
const TOPIC = 2;
const BROKER = 4;
const STATIC_BROKER_CONFIG = 4;
const DEFAULT_CONFIG = 5;
const DYNAMIC_TOPIC_CONFIG = 1;

function batch(count: number, options: { first?: number; producerId?: bigint; epoch?: number; sequence?: number } = {}): Buffer {
  const first = options.first ?? 0;
  return encodeRecordBatch({
    records: Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`v${first + i}`), timestamp: T0 + (first + i) * 1000 })),
    producerId: options.producerId, producerEpoch: options.epoch, baseSequence: options.sequence,
  });
}

function produce(topic: string, partition: number, records: Buffer): ProduceRequestData {
  return { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

function fetch(topics: FetchRequestData['topics'], extra: Partial<FetchRequestData> = {}): FetchRequestData {
  return { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, topics, forgottenTopicsData: [], rackId: '', ...extra };
}

const part = (partition: number, fetchOffset = 0n) => ({ partition, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n });

describe('broker behaviour aligned with Apache Kafka 4.4 by the differential tests', () => {
  let broker: Awaited<ReturnType<typeof startBrook>>;
  let conn: RawConnection;

  before(async () => {
    broker = await startBrook();
    conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
    const created = await conn.request('CreateTopics', 7, {
      topics: [{ name: 'fx', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '3600000' }] }],
      timeoutMs: 5000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
  });

  after(async () => {
    conn.close();
    await broker.stop();
  });

  it('DescribeConfigs v1-v4 answers topics with default configs (their source DEFAULT_CONFIG) and an empty error message', async () => {
    for (const version of [1, 2, 3, 4]) {
      const res = await conn.request('DescribeConfigs', version, { resources: [{ resourceType: TOPIC, resourceName: 'fx', configurationKeys: null }], includeSynonyms: version >= 1 });
      const result = res.results[0]!;
      assert.equal(result.errorCode, ErrorCode.NONE, `v${version}`);
      assert.equal(result.errorMessage, '', `v${version}: Kafka sends '' on success`);
      const segmentBytes = result.configs.find((c) => c.name === 'segment.bytes')!;
      assert.equal(segmentBytes.configSource, DEFAULT_CONFIG, `v${version}: source`);
    }
    assert.ok(conn.open, 'the connection stays open');
  });

  it('topic config synonyms: no DEFAULT_CONFIG synonym under broker settings Kafka leaves unset', async () => {
    const res = await conn.request('DescribeConfigs', 4, {
      resources: [{ resourceType: TOPIC, resourceName: 'fx', configurationKeys: ['retention.ms', 'segment.ms', 'flush.ms', 'segment.jitter.ms', 'segment.bytes'] }],
      includeSynonyms: true, includeDocumentation: false,
    });
    const synonyms = Object.fromEntries(res.results[0]!.configs.map((c) => [c.name, c.synonyms!.map((s) => [s.name, s.value, s.source])]));
    assert.deepEqual(synonyms, {
      'retention.ms': [['retention.ms', '3600000', DYNAMIC_TOPIC_CONFIG]],
      'segment.ms': [],
      'flush.ms': [],
      'segment.jitter.ms': [],
      'segment.bytes': [['log.segment.bytes', '1073741824', DEFAULT_CONFIG]],
    });
  });

  it('topic configs Kafka 4.4 added: described with Kafka 4.4\'s defaults, types and broker synonyms', async () => {
    const res = await conn.request('DescribeConfigs', 4, {
      resources: [{ resourceType: TOPIC, resourceName: 'fx', configurationKeys: ['errors.deadletterqueue.group.enable', 'max.decompressed.message.bytes', 'remote.copy.lag.bytes', 'remote.copy.lag.ms'] }],
      includeSynonyms: true, includeDocumentation: false,
    });
    const configs = Object.fromEntries(res.results[0]!.configs.map((c) => [c.name, [c.value, c.configSource, c.configType, c.synonyms!.map((s) => [s.name, s.value, s.source])]]));
    // What Kafka 4.4.0 answers for a topic created without these (types: 1 BOOLEAN, 3 INT, 5 LONG).
    assert.deepEqual(configs, {
      'errors.deadletterqueue.group.enable': ['false', DEFAULT_CONFIG, 1, []],
      'max.decompressed.message.bytes': ['2147483639', DEFAULT_CONFIG, 3, [['max.decompressed.message.bytes', '2147483639', DEFAULT_CONFIG]]],
      'remote.copy.lag.bytes': ['-1', DEFAULT_CONFIG, 5, [['log.remote.copy.lag.bytes', '-1', DEFAULT_CONFIG]]],
      'remote.copy.lag.ms': ['0', DEFAULT_CONFIG, 5, [['log.remote.copy.lag.ms', '0', DEFAULT_CONFIG]]],
    });
  });

  it('broker configs: listeners, advertised.listeners and log.dirs are LIST configs, as Kafka 4.4 describes them', async () => {
    const res = await conn.request('DescribeConfigs', 4, {
      resources: [{ resourceType: BROKER, resourceName: String(broker.config.nodeId), configurationKeys: ['listeners', 'advertised.listeners', 'log.dirs', 'process.roles'] }],
      includeSynonyms: false, includeDocumentation: false,
    });
    const LIST = 7;
    assert.deepEqual(Object.fromEntries(res.results[0]!.configs.map((c) => [c.name, c.configType])), {
      'listeners': LIST, 'advertised.listeners': LIST, 'log.dirs': LIST, 'process.roles': LIST,
    });
  });

  it('broker configs: the bound listener port, the set value then Kafka\'s default as synonyms, unset log.retention.ms', async () => {
    const res = await conn.request('DescribeConfigs', 4, {
      resources: [{ resourceType: BROKER, resourceName: String(broker.config.nodeId), configurationKeys: ['listeners', 'broker.id', 'group.initial.rebalance.delay.ms', 'log.retention.ms', 'log.roll.ms', 'num.partitions'] }],
      includeSynonyms: true, includeDocumentation: false,
    });
    const configs = Object.fromEntries(res.results[0]!.configs.map((c) => [c.name, { value: c.value, source: c.configSource, synonyms: c.synonyms!.map((s) => [s.value, s.source]) }]));
    assert.deepEqual(configs['listeners'], {
      value: `PLAINTEXT://127.0.0.1:${broker.port}`, source: STATIC_BROKER_CONFIG,
      synonyms: [[`PLAINTEXT://127.0.0.1:${broker.port}`, STATIC_BROKER_CONFIG], ['PLAINTEXT://:9092', DEFAULT_CONFIG]],
    });
    assert.deepEqual(configs['broker.id']!.synonyms, [[String(broker.config.nodeId), STATIC_BROKER_CONFIG], ['-1', DEFAULT_CONFIG]]);
    // startBrook sets group.initial.rebalance.delay.ms=0.
    assert.deepEqual(configs['group.initial.rebalance.delay.ms']!.synonyms, [['0', STATIC_BROKER_CONFIG], ['3000', DEFAULT_CONFIG]]);
    assert.deepEqual(configs['num.partitions'], { value: '1', source: DEFAULT_CONFIG, synonyms: [['1', DEFAULT_CONFIG]] });
    assert.deepEqual(configs['log.retention.ms'], { value: null, source: DEFAULT_CONFIG, synonyms: [] });
    assert.deepEqual(configs['log.roll.ms'], { value: null, source: DEFAULT_CONFIG, synonyms: [] });
  });

  it('a too-new ApiVersions gets v0 UNSUPPORTED_VERSION listing ApiVersions\' own range only', async () => {
    const c = await RawConnection.connect('127.0.0.1', broker.port);
    try {
      const frame = Buffer.from('0012006300000007ffff0000', 'hex'); // key 18, v99, correlation 7, null client id, no tags; empty body
      const res = await c.sendRaw(frame);
      assert.equal(res!.body.toString('hex'), '002300000001001200000005');
    } finally {
      c.close();
    }
  });

  it('Metadata: a missing internal topic is internal; an illegal name is INVALID_TOPIC_EXCEPTION without auto-creation too', async () => {
    const md = await conn.request('Metadata', 12, {
      topics: [{ name: '__consumer_offsets' }, { name: 'bad name!' }, { name: 'absent' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false,
    });
    assert.deepEqual(md.topics.map((t) => [t.name, t.errorCode, t.isInternal]), [
      ['__consumer_offsets', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, true],
      ['bad name!', ErrorCode.INVALID_TOPIC_EXCEPTION, false],
      ['absent', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, false],
    ]);
  });

  it('cluster authorized operations are Kafka\'s for the CLUSTER resource (no token operations)', async () => {
    const md = await conn.request('Metadata', 9, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: false });
    assert.equal(md.clusterAuthorizedOperations, 8096);
    const dc = await conn.request('DescribeCluster', 1, { includeClusterAuthorizedOperations: true, endpointType: 1 });
    assert.equal(dc.clusterAuthorizedOperations, 8096);
  });

  it('CreateTopics: a repeated name gets one INVALID_REQUEST result, after the others; failures carry an empty configs list', async () => {
    const res = await conn.request('CreateTopics', 7, {
      topics: ['dup', 'single', 'dup'].map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 5000,
      validateOnly: false,
    });
    assert.deepEqual(res.topics.map((t) => [t.name, t.errorCode]), [['single', ErrorCode.NONE], ['dup', ErrorCode.INVALID_REQUEST]]);
    assert.deepEqual(res.topics[1]!.configs, []);
    const bad = await conn.request('CreateTopics', 7, { topics: [{ name: 'p0', numPartitions: 0, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    assert.equal(bad.topics[0]!.errorCode, ErrorCode.INVALID_PARTITIONS);
    assert.deepEqual(bad.topics[0]!.configs, []);
  });

  it('DescribeCluster for controllers: MISMATCHED_ENDPOINT_TYPE; an unknown endpoint type: UNSUPPORTED_ENDPOINT_TYPE; other fields at their defaults', async () => {
    for (const [endpointType, errorCode] of [[2, ErrorCode.MISMATCHED_ENDPOINT_TYPE], [3, ErrorCode.UNSUPPORTED_ENDPOINT_TYPE]]) {
      const dc = await conn.request('DescribeCluster', 1, { includeClusterAuthorizedOperations: true, endpointType });
      assert.equal(dc.errorCode, errorCode);
      assert.ok(dc.errorMessage);
      assert.deepEqual([dc.endpointType, dc.clusterId, dc.controllerId, dc.brokers, dc.clusterAuthorizedOperations], [1, '', -1, [], -2147483648]);
    }
  });

  it('DeleteTopics explains an unknown name or id', async () => {
    const res = await conn.request('DeleteTopics', 6, { topics: [{ name: 'nope', topicId: ZERO_UUID }, { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }], timeoutMs: 5000 });
    assert.deepEqual(res.responses.map((r) => r.errorCode), [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID]);
    assert.ok(res.responses.every((r) => typeof r.errorMessage === 'string' && r.errorMessage.length > 0));
  });

  it('Produce: errors raised by the log carry its log start offset; request-level checks and corruption do not', async () => {
    const nonZeroBase = batch(1);
    nonZeroBase.writeBigInt64BE(5n, 0);
    const corrupt = batch(1);
    corrupt[20] ^= 0xff;
    const cases: [Buffer, number, bigint][] = [
      [nonZeroBase, ErrorCode.INVALID_RECORD, 0n],
      [Buffer.concat([batch(1), batch(1)]), ErrorCode.INVALID_RECORD, -1n],
      [corrupt, ErrorCode.CORRUPT_MESSAGE, -1n],
    ];
    for (const [records, errorCode, logStartOffset] of cases) {
      const p = (await conn.request('Produce', 9, produce('fx', 1, records)))!.responses[0]!.partitionResponses[0]!;
      assert.deepEqual([p.errorCode, p.logStartOffset], [errorCode, logStartOffset]);
    }
  });

  it('idempotent Produce: a duplicate answers with the first offsets and its batch timestamp as append time; a gap carries the log start offset', async () => {
    const init = await conn.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000 });
    const send = async (sequence: number, first: number) =>
      (await conn.request('Produce', 9, produce('fx', 0, batch(1, { first, producerId: init.producerId, epoch: 0, sequence }))))!.responses[0]!.partitionResponses[0]!;
    assert.equal((await send(0, 0)).errorCode, ErrorCode.NONE);
    const dup = await send(0, 0);
    assert.deepEqual([dup.errorCode, dup.baseOffset, dup.logAppendTimeMs], [ErrorCode.NONE, 0n, BigInt(T0)]);
    const gap = await send(5, 1);
    assert.deepEqual([gap.errorCode, gap.baseOffset, gap.logStartOffset], [ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, -1n, 0n]);
  });

  it('Fetch v13+ finds topics by id; unknown ids, unknown partitions and out-of-range offsets are answered as Kafka answers them', async () => {
    assert.equal((await conn.request('Produce', 9, produce('fx', 0, batch(2, { first: 50 }))))!.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
    const md = await conn.request('Metadata', 12, { topics: [{ name: 'fx' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    const topicId = md.topics[0]!.topicId!;
    for (const version of [13, 15, 17]) {
      const res = await conn.request('Fetch', version, fetch([{ topic: '', topicId, partitions: [part(0)] }]));
      const p = res.responses[0]!.partitions[0]!;
      assert.equal(res.responses[0]!.topicId, topicId);
      assert.equal(p.errorCode, ErrorCode.NONE, `v${version}`);
      assert.ok(p.records!.length > 0, `v${version}: the stored batch`);
    }
    const unknownId = await conn.request('Fetch', 13, fetch([{ topic: '', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [part(0)] }]));
    assert.deepEqual([unknownId.responses[0]!.partitions[0]!.errorCode, unknownId.responses[0]!.partitions[0]!.abortedTransactions], [ErrorCode.UNKNOWN_TOPIC_ID, []]);
    const unknownPartition = await conn.request('Fetch', 12, fetch([{ topic: 'fx', partitions: [part(7)] }]));
    assert.deepEqual(unknownPartition.responses[0]!.partitions[0]!.abortedTransactions, []);
    const outOfRange = (await conn.request('Fetch', 12, fetch([{ topic: 'fx', partitions: [part(0, 99n)] }]))).responses[0]!.partitions[0]!;
    assert.deepEqual(
      [outOfRange.errorCode, outOfRange.highWatermark, outOfRange.lastStableOffset, outOfRange.logStartOffset, outOfRange.abortedTransactions],
      [ErrorCode.OFFSET_OUT_OF_RANGE, -1n, -1n, -1n, null],
    );
  });

  it('bad input after valid requests: those are answered first (a parked fetch too), then the connection closes', async () => {
    const request = (apiKey: number, version: number, correlationId: number, body: Buffer): Buffer => {
      const frame = Buffer.alloc(14 + body.length);
      frame.writeInt32BE(10 + body.length, 0);
      frame.writeInt16BE(apiKey, 4);
      frame.writeInt16BE(version, 6);
      frame.writeInt32BE(correlationId, 8);
      frame.writeInt16BE(-1, 12);
      body.copy(frame, 14);
      return frame;
    };
    // Fetch v4 of fx/1 at its log end: waits maxWaitMs (300) for data that never comes.
    const fetchBody = Buffer.alloc(4 + 4 + 4 + 4 + 1 + 4 + 2 + 2 + 4 + 4 + 8 + 4);
    let at = fetchBody.writeInt32BE(-1, 0);
    at = fetchBody.writeInt32BE(300, at);
    at = fetchBody.writeInt32BE(1, at);
    at = fetchBody.writeInt32BE(1 << 20, at);
    at = fetchBody.writeInt8(0, at);
    at = fetchBody.writeInt32BE(1, at);
    at = fetchBody.writeInt16BE(2, at);
    at += fetchBody.write('fx', at);
    at = fetchBody.writeInt32BE(1, at);
    at = fetchBody.writeInt32BE(1, at);
    const end = (await conn.request('ListOffsets', 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'fx', partitions: [{ partitionIndex: 1, timestamp: -1n }] }] })).topics[0]!.partitions[0]!.offset!;
    at = fetchBody.writeBigInt64BE(end, at);
    fetchBody.writeInt32BE(1 << 20, at);
    const cases: [string, Buffer, number[]][] = [
      ['negative size', Buffer.concat([request(18, 0, 7, Buffer.alloc(0)), request(18, 0, 8, Buffer.alloc(0)), Buffer.from('fffffffe', 'hex')]), [7, 8]],
      ['unknown API key', Buffer.concat([request(18, 0, 7, Buffer.alloc(0)), request(0x7fff, 0, 8, Buffer.alloc(0))]), [7]],
      ['a parked fetch, then an unsupported version', Buffer.concat([request(1, 4, 7, fetchBody), request(3, 99, 8, Buffer.alloc(0))]), [7]],
    ];
    for (const [what, bytes, expected] of cases) {
      const started = Date.now();
      const { received, closed } = await new Promise<{ received: Buffer; closed: boolean }>((resolve) => {
        const socket = createConnection({ host: '127.0.0.1', port: broker.port }, () => socket.write(bytes));
        const chunks: Buffer[] = [];
        const timer = setTimeout(() => { socket.destroy(); resolve({ received: Buffer.concat(chunks), closed: false }); }, 3000);
        socket.on('data', (d: Buffer) => chunks.push(d));
        socket.on('close', () => { clearTimeout(timer); resolve({ received: Buffer.concat(chunks), closed: true }); });
        socket.on('error', () => undefined);
      });
      const ids: number[] = [];
      for (let i = 0; received.length - i >= 8; i += 4 + received.readInt32BE(i)) ids.push(received.readInt32BE(i + 4));
      assert.deepEqual(ids, expected, `${what}: responses before the close`);
      assert.ok(closed, `${what}: the broker closed the connection`);
      if (what.includes('fetch')) assert.ok(Date.now() - started >= 250, `${what}: the fetch waited its maxWaitMs`);
    }
    assert.equal((await conn.request('Metadata', 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).brokers.length, 1);
  });

  it('ListOffsets: a partition named twice gets one INVALID_REQUEST answer', async () => {
    const res = await conn.request('ListOffsets', 7, {
      replicaId: -1, isolationLevel: 0,
      topics: [{ name: 'fx', partitions: [{ partitionIndex: 0, timestamp: -1n }, { partitionIndex: 1, timestamp: -1n }, { partitionIndex: 0, timestamp: -2n }] }],
    });
    assert.deepEqual(res.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.errorCode])]), [
      ['fx', [[0, ErrorCode.INVALID_REQUEST], [1, ErrorCode.NONE]]],
    ]);
  });
});
