/**
 * The broker's own behaviour, driven over real sockets with Brook's client connection:
 * version negotiation, ordered pipelined responses, long-poll fetch, acks semantics,
 * topic administration and bad input.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaConnection, type RequestOf, type ResponseOf } from '../../src/client/connection.js';
import { Admin } from '../../src/client/admin.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodeRecordBatch, decodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FrameDecoder, decodeResponse, encodeRequest, responseCorrelationId } from '../../src/protocol/frame.js';
import { startBrook } from '../support/brook.js';

let broker: Awaited<ReturnType<typeof startBrook>>;
let conn: KafkaConnection;

before(async () => {
  broker = await startBrook();
  conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'core-test' });
});

after(async () => {
  conn.close();
  await broker.stop();
});

function batch(values: string[], producerId = -1n, baseSequence = -1): Buffer {
  return encodeRecordBatch({
    producerId, producerEpoch: producerId >= 0n ? 0 : -1, baseSequence,
    records: values.map((v, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(v), headers: [], timestamp: BigInt(Date.now()) })),
  });
}

async function produce(topic: string, partition: number, records: Buffer, acks = -1) {
  return conn.request(Api.Produce, { transactionalId: null, acks, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
}

/** Fetch v12: the newest version that names topics (v13+ use topic ids). */
const FETCH_BY_NAME = { version: 12 };

function fetchRequest(topic: string, offset: bigint, maxWaitMs = 0, minBytes = 1) {
  return {
    replicaId: -1, maxWaitMs, minBytes, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
    forgottenTopicsData: [], rackId: '',
  };
}

test('ApiVersions advertises exactly the served APIs, negotiated to the newest common version', () => {
  assert.equal(conn.supportedVersion(Api.Metadata), Api.Metadata.request.highestVersion);
  assert.equal(conn.supportedVersion(Api.JoinGroup), Api.JoinGroup.request.highestVersion);
  // The KIP-848 consumer protocol, at Kafka 4.4's versions.
  assert.equal(conn.supportedVersion(Api.ConsumerGroupHeartbeat), 1);
  assert.equal(conn.supportedVersion(Api.ConsumerGroupDescribe), 1);
  assert.ok((conn.supportedVersion(Api.Produce) ?? 0) >= 3);
});

test('Metadata auto-creates a topic with num.partitions and describes this broker', async () => {
  const md = await conn.request(Api.Metadata, { topics: [{ name: 'auto-1', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  assert.deepEqual(md.brokers.map((b) => [b.host, b.port]), [['127.0.0.1', broker.port]]);
  assert.equal(md.topics[0]!.errorCode, ErrorCode.NONE);
  assert.equal(md.topics[0]!.partitions.length, 1);
  const no = await conn.request(Api.Metadata, { topics: [{ name: 'not-created', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  assert.equal(no.topics[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
});

test('produce then fetch returns the stored batch bytes with assigned offsets', async () => {
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  await admin.createTopic({ name: 'pf', partitions: 2 });
  admin.close();
  const first = await produce('pf', 0, batch(['a', 'b', 'c']));
  const p0 = first.responses[0]!.partitionResponses[0]!;
  assert.equal(p0.errorCode, ErrorCode.NONE);
  assert.equal(p0.baseOffset, 0n);
  const second = await produce('pf', 0, batch(['d']));
  assert.equal(second.responses[0]!.partitionResponses[0]!.baseOffset, 3n);
  const fetched = await conn.request(Api.Fetch, fetchRequest('pf', 1n), FETCH_BY_NAME);
  const part = fetched.responses[0]!.partitions[0]!;
  assert.equal(part.highWatermark, 4n);
  const values = [...iterateBatches(part.records!)].flatMap((b) => decodeRecordBatch(b.buffer).records.map((r) => [r.offset, r.value!.toString()]));
  assert.deepEqual(values, [[0n, 'a'], [1n, 'b'], [2n, 'c'], [3n, 'd']], 'the batch containing offset 1 comes whole');
  const out = await conn.request(Api.Fetch, fetchRequest('pf', 99n), FETCH_BY_NAME);
  assert.equal(out.responses[0]!.partitions[0]!.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
});

test('a fetch parked at the log end wakes when a record arrives', { timeout: 30_000 }, async () => {
  await produce('wake', 0, batch(['x']));
  // Produce only once the broker has parked the fetch (seen through its append notifier), and
  // ask for a maxWaitMs far beyond the test's timeout: only the wake can answer it in time, so
  // the test needs no wall-clock threshold.
  const appends = broker.context.appends;
  const waitForAppend = appends.waitForAppend;
  let onParked!: () => void;
  const parkedNow = new Promise<void>((resolve) => { onParked = resolve; });
  appends.waitForAppend = (keys, timeoutMs, stop) => {
    onParked();
    return waitForAppend.call(appends, keys, timeoutMs, stop);
  };
  try {
    const parked = conn.request(Api.Fetch, fetchRequest('wake', 1n, 600_000), { ...FETCH_BY_NAME, timeoutMs: 700_000 });
    await parkedNow;
    const other = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
    await other.request(Api.Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'wake', partitionData: [{ index: 0, records: batch(['y']) }] }] });
    other.close();
    const part = (await parked).responses[0]!.partitions[0]!;
    const values = [...iterateBatches(part.records!)].flatMap((b) => decodeRecordBatch(b.buffer).records.map((r) => [r.offset, r.value!.toString()]));
    assert.deepEqual(values, [[1n, 'y']], 'woken with the record that arrived');
  } finally {
    appends.waitForAppend = waitForAppend;
  }
});

test('a fetch with nothing to return waits maxWaitMs', async () => {
  await produce('wait', 0, batch(['x']));
  const started = Date.now();
  const response = await conn.request(Api.Fetch, fetchRequest('wait', 1n, 300), FETCH_BY_NAME);
  assert.ok(Date.now() - started >= 250);
  assert.equal(response.responses[0]!.partitions[0]!.records!.length, 0);
});

test('a parked fetch answers at once, empty, when a later request on its connection is answered; responses stay in order', { timeout: 10_000 }, async () => {
  await produce('wait-behind', 0, batch(['x']));
  // maxWaitMs far beyond the test's timeout: only the early answer lets this test pass.
  const parked = conn.request(Api.Fetch, fetchRequest('wait-behind', 1n, 600_000), { ...FETCH_BY_NAME, timeoutMs: 700_000 });
  const order: string[] = [];
  void parked.then(() => order.push('fetch'));
  await new Promise((r) => setTimeout(r, 50)); // the fetch is parked now
  const behind = await conn.request(Api.Metadata, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  order.push('metadata');
  assert.equal(behind.brokers.length, 1);
  const fetched = await parked;
  assert.deepEqual(order, ['fetch', 'metadata']);
  assert.equal(fetched.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  assert.equal(fetched.responses[0]!.partitions[0]!.records!.length, 0);
  assert.equal(fetched.responses[0]!.partitions[0]!.highWatermark, 1n);
});

test('acks=0 gets no response; a failing acks=0 produce closes the connection', { timeout: 30_000 }, async () => {
  // A raw socket, to see exactly which requests are answered. The broker handles a
  // connection's requests in order and answers in order (Kafka's guarantee), so a ListOffsets
  // written right after the acks=0 produce is handled after the append (no waiting for it),
  // and its answer comes first exactly when the produce gets none.
  const s = connect({ host: '127.0.0.1', port: broker.port });
  await once(s, 'connect');
  s.on('error', () => undefined);
  const closed = once(s, 'close');
  const decoder = new FrameDecoder();
  const frames: Buffer[] = [];
  let arrived = (): void => undefined;
  s.on('data', (d: Buffer) => {
    frames.push(...decoder.push(d));
    arrived();
  });
  const write = <A extends typeof Api.Produce | typeof Api.ListOffsets | typeof Api.Metadata>(api: A, correlationId: number, body: RequestOf<A>): void => {
    for (const chunk of encodeRequest({ api, apiVersion: conn.supportedVersion(api)!, correlationId, clientId: 'acks0', body })) s.write(chunk);
  };
  const acksZero = (records: Buffer): RequestOf<typeof Api.Produce> => ({ transactionalId: null, acks: 0, timeoutMs: 5000, topicData: [{ name: 'acks0', partitionData: [{ index: 0, records }] }] });
  write(Api.Produce, 1, acksZero(batch(['z'])));
  write(Api.ListOffsets, 2, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'acks0', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] });
  while (frames.length === 0) await new Promise<void>((resolve) => { arrived = resolve; });
  assert.equal(responseCorrelationId(frames[0]!), 2, 'the first answer is the ListOffsets one: the acks=0 produce got none');
  const lo = decodeResponse(frames[0]!, Api.ListOffsets, conn.supportedVersion(Api.ListOffsets)!).body as ResponseOf<typeof Api.ListOffsets>;
  assert.equal(lo.topics[0]!.partitions[0]!.offset, 1n, 'the acks=0 record was appended');

  const corrupt = batch(['bad']);
  corrupt[corrupt.length - 1] ^= 0xff;
  write(Api.Produce, 3, acksZero(corrupt));
  write(Api.Metadata, 4, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  await closed;
  assert.deepEqual(frames.map(responseCorrelationId), [2], 'closed without answering the failing produce or the Metadata after it');
});

test('invalid acks and corrupt batches get per-partition errors', async () => {
  const bad = await produce('errs', 0, batch(['a']), 2);
  assert.equal(bad.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.INVALID_REQUIRED_ACKS);
  const corrupt = batch(['a']);
  corrupt[corrupt.length - 1] ^= 0xff;
  const r = await produce('errs', 0, corrupt);
  assert.equal(r.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.CORRUPT_MESSAGE);
  const unknown = await produce('errs', 7, batch(['a']));
  assert.equal(unknown.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
});

test('idempotent producer: duplicates are acknowledged with their first offsets, gaps are refused', async () => {
  const init = await conn.request(Api.InitProducerId, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);
  const pid = init.producerId;
  const first = await produce('idem', 0, batch(['a', 'b'], pid, 0));
  const dup = await produce('idem', 0, batch(['a', 'b'], pid, 0));
  assert.equal(dup.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  assert.equal(dup.responses[0]!.partitionResponses[0]!.baseOffset, first.responses[0]!.partitionResponses[0]!.baseOffset);
  const gap = await produce('idem', 0, batch(['c'], pid, 5));
  assert.equal(gap.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  const next = await conn.request(Api.InitProducerId, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1 });
  assert.notEqual(next.producerId, pid, 'every InitProducerId gets a fresh id');
});

test('topics can be created, listed, described and deleted through the admin client', async () => {
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  try {
    await admin.createTopic({ name: 'adm', partitions: 3, configs: { 'retention.ms': '1000' } });
    await assert.rejects(admin.createTopic({ name: 'adm', partitions: 3 }), { errorCode: ErrorCode.TOPIC_ALREADY_EXISTS });
    await assert.rejects(admin.createTopic({ name: 'bad name!', partitions: 1 }), { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION });
    await assert.rejects(admin.createTopic({ name: 'rf', partitions: 1, replicationFactor: 3 }), { errorCode: ErrorCode.INVALID_REPLICATION_FACTOR });
    assert.ok((await admin.listTopics()).includes('adm'));
    const d = await admin.describeTopic('adm');
    assert.equal(d.partitions.length, 3);
    await admin.deleteTopic('adm');
    assert.ok(!(await admin.listTopics()).includes('adm'));
  } finally {
    admin.close();
  }
});

test('bad input closes only the offending connection', async () => {
  const garbage = async (bytes: Buffer): Promise<void> => {
    const s = connect({ host: '127.0.0.1', port: broker.port });
    await new Promise<void>((resolve) => s.once('connect', () => resolve()));
    const closed = new Promise<void>((resolve) => s.once('close', () => resolve()));
    s.on('error', () => undefined);
    s.write(bytes);
    await closed;
  };
  await garbage(Buffer.from('7fffffff00000000', 'hex')); // absurd size: refused before allocation
  await garbage(Buffer.from('ffffffff', 'hex')); // negative size
  await garbage(Buffer.from('0000000a7fff0000000000010000', 'hex')); // unknown API key 32767
  await garbage(Buffer.from('0000000a000300ff00000001ffff', 'hex')); // Metadata v255
  await garbage(Buffer.from('00000006000300010000', 'hex')); // truncated header
  const md = await conn.request(Api.Metadata, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  assert.equal(md.brokers.length, 1, 'other connections keep working');
});

test('a too-new ApiVersions request gets UNSUPPORTED_VERSION with the ranges, in v0', async () => {
  const s = connect({ host: '127.0.0.1', port: broker.port });
  await new Promise<void>((resolve) => s.once('connect', () => resolve()));
  const reply = new Promise<Buffer>((resolve, reject) => {
    s.once('data', (d: Buffer) => resolve(d));
    s.once('close', () => reject(new Error('connection closed without an answer')));
  });
  // size, api key 18, version 99, correlation 7, client id "x", no header tagged fields
  s.write(Buffer.from('0000000c001200630000000700017800', 'hex'));
  const data = await reply;
  s.destroy();
  assert.equal(data.readInt32BE(4), 7);
  assert.equal(data.readInt16BE(8), ErrorCode.UNSUPPORTED_VERSION);
  assert.ok(data.readInt32BE(10) > 0, 'the supported ranges follow');
});

test('fetch reads share pooled buffers (file storage): 30 fetches of ~1.2 MB to a client that stops reading arrive intact', { timeout: 60_000 }, async (t) => {
  // File storage: the memory engine hands out views of its buffers and reads nothing.
  const dataDir = await mkdtemp(join(tmpdir(), 'brook-pool-'));
  const fileBroker = await startBrook({ dataDir });
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: fileBroker.port });
  t.after(async () => {
    conn.close();
    await fileBroker.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
  const produce = (topic: string, partition: number, records: Buffer) =>
    conn.request(Api.Produce, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] });
  const admin = await Admin.connect({ bootstrapServers: fileBroker.bootstrap });
  await admin.createTopic({ name: 'pooled', partitions: 3 });
  admin.close();
  for (let p = 0; p < 3; p++) {
    for (let b = 0; b < 12; b++) {
      const records = encodeRecordBatch({ records: Array.from({ length: 100 }, () => ({ key: null, value: randomBytes(1000), headers: [], timestamp: 0n })) });
      assert.equal((await produce('pooled', p, records)).responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
    }
  }
  const request = (partition: number) => ({
    replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 4 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: 'pooled', partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 2 << 20 }] }],
    forgottenTopicsData: [], rackId: '',
  });
  const expected: Buffer[] = [];
  for (let p = 0; p < 3; p++) {
    const r = await conn.request(Api.Fetch, request(p), FETCH_BY_NAME);
    expected.push(Buffer.from(r.responses[0]!.partitions[0]!.records!));
    assert.ok(expected[p]!.length > 1_000_000);
  }
  // A raw client that sends the fetches and does not read for a while: the responses back
  // up in the broker's socket buffers while later fetches keep reading into the pool. A
  // buffer reused before its response was written would show up as a changed response.
  const s = connect({ host: '127.0.0.1', port: fileBroker.port });
  await new Promise<void>((resolve) => s.once('connect', () => resolve()));
  s.pause();
  const count = 30;
  for (let i = 0; i < count; i++) {
    // One at a time, so each is read after the earlier responses were queued for writing.
    for (const chunk of encodeRequest({ api: Api.Fetch, apiVersion: 12, correlationId: i, clientId: 'slow', body: request(i % 3) })) s.write(chunk);
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 200));
  const decoder = new FrameDecoder();
  const frames: Buffer[] = [];
  const all = new Promise<void>((resolve, reject) => {
    s.on('data', (d: Buffer) => {
      frames.push(...decoder.push(d));
      if (frames.length === count) resolve();
    });
    s.once('close', () => reject(new Error(`closed after ${frames.length} responses`)));
  });
  s.resume();
  await all;
  s.destroy();
  frames.forEach((frame, i) => {
    const { correlationId, body } = decodeResponse(frame, Api.Fetch, 12) as { correlationId: number; body: { responses: { partitions: { records: Buffer }[] }[] } };
    assert.equal(correlationId, i);
    assert.ok(body.responses[0]!.partitions[0]!.records.equals(expected[i % 3]!), `response ${i} intact`);
  });
});
