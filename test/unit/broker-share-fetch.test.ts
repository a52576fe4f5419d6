/**
 * ShareFetch and ShareAcknowledge on a broker, over the wire: share sessions, acquisition
 * with delivery counts, acknowledgements piggybacked on a fetch and on their own, release
 * and redelivery, the checks Kafka makes first, and durability: after a restart on the same
 * data directory an accepted record is not delivered again and an acquired one is.
 * (The share-partitions are initialized directly through InitializeShareGroupState here; the
 * interop tests run the whole path with Kafka's KafkaShareConsumer.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ShareFetchRequestData, ShareFetchResponseData } from '../../src/protocol/messages/share-fetch.js';
import { decodeRecords } from '../../src/protocol/records/batch-codec.js';
import { Producer } from '../../src/index.js';
import { startBrook, tempDir } from '../support/brook.js';
import { produce } from '../support/consumer-helpers.js';
import { httpGet, parseExposition, promtoolAvailable, promtoolCheck, PROMTOOL_MISSING, sampleValue } from '../support/prometheus.js';

const T = { timeout: 60_000 };
const MEMBER = 'AAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'BBBBBBBBBBBBBBBBBBBBBB';
const ACCEPT = 1;
const RELEASE = 2;

async function createTopic(conn: KafkaConnection, name: string, numPartitions: number): Promise<string> {
  const created = await conn.request(Api.CreateTopics, { topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, { version: 7 });
  return created.topics[0]!.topicId!;
}

async function initialize(conn: KafkaConnection, groupId: string, topicId: string, partition: number): Promise<void> {
  const init = await conn.request(Api.InitializeShareGroupState, { groupId, topics: [{ topicId, partitions: [{ partition, stateEpoch: 0, startOffset: 0n }] }] });
  assert.equal(init.results[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
}

function fetchRequest(groupId: string, memberId: string, epoch: number, topicId: string, acks: { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }[] = [], maxWaitMs = 0): ShareFetchRequestData {
  return {
    groupId, memberId, shareSessionEpoch: epoch, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }], forgottenTopicsData: [],
  };
}

function values(response: ShareFetchResponseData): string[] {
  const p = response.responses[0]?.partitions[0];
  if (p?.records == null || p.records.length === 0) return [];
  return decodeRecords(p.records).map((r) => r.value!.toString());
}

test('ShareFetch acquires for one member at a time; RELEASE brings records back with delivery count 2; ACCEPT moves on; the metrics count it', T, async (t) => {
  const broker = await startBrook({ metricsPort: 0 });
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const topicId = await createTopic(conn, 'sf', 1);
  await initialize(conn, 'g', topicId, 0);
  await produce(broker.bootstrap, 'sf', 0, ['a', 'b', 'c']);

  const first = await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 0, topicId));
  assert.equal(first.errorCode, ErrorCode.NONE);
  assert.equal(first.acquisitionLockTimeoutMs, 30_000);
  assert.deepEqual(first.responses[0]!.partitions[0]!.acquiredRecords, [{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 }]);
  assert.deepEqual(values(first), ['a', 'b', 'c']);

  // Another member finds nothing to acquire; its first request is answered with the partition anyway.
  const other = await conn.request(Api.ShareFetch, fetchRequest('g', OTHER, 0, topicId));
  assert.deepEqual(other.responses[0]!.partitions[0]!.acquiredRecords, []);

  // Release offset 1, accept the rest, in the next fetch: offset 1 comes back at delivery 2
  // once the release is durable (as in Kafka, the fetch waits for it: it is not acquirable before).
  const second = await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 1, topicId, [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [ACCEPT, RELEASE, ACCEPT] }], 5000));
  const part = second.responses[0]!.partitions[0]!;
  assert.equal(part.acknowledgeErrorCode, ErrorCode.NONE);
  assert.deepEqual(part.acquiredRecords, [{ firstOffset: 1n, lastOffset: 1n, deliveryCount: 2 }]);

  // Acknowledging a record the member does not hold fails the partition's acknowledgement.
  const wrong = await conn.request(Api.ShareAcknowledge, { groupId: 'g', memberId: OTHER, shareSessionEpoch: 1, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }] }] }] });
  assert.equal(wrong.responses[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_RECORD_STATE);
  const ack = await conn.request(Api.ShareAcknowledge, { groupId: 'g', memberId: MEMBER, shareSessionEpoch: 2, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }] }] }] });
  assert.equal(ack.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const sp = broker.context.shares.partitionsOf('g')[0]!.sharePartition;
  assert.equal(sp.startOffset, 3);

  // 4 deliveries (a, b, c, then b again); accepted a, c, then b; released b once.
  const scrape = await httpGet(broker.metricsPort!, '/metrics');
  const samples = parseExposition(scrape.body);
  assert.equal(sampleValue(samples, 'brook_share_records_acquired_total', { group: 'g' }), 4);
  assert.equal(sampleValue(samples, 'brook_share_records_acknowledged_total', { group: 'g', type: 'ACCEPT' }), 3);
  assert.equal(sampleValue(samples, 'brook_share_records_acknowledged_total', { group: 'g', type: 'RELEASE' }), 1);
  assert.equal(sampleValue(samples, 'brook_share_partition_start_offset', { group: 'g', topic: 'sf', partition: '0' }), 3);
  assert.equal(sampleValue(samples, 'brook_share_partition_in_flight_records', { group: 'g', topic: 'sf', partition: '0' }), 0);
  assert.equal(sampleValue(samples, 'brook_share_sessions', {}), 2);
  if (promtoolAvailable()) {
    const lint = await promtoolCheck(scrape.body);
    assert.deepEqual([lint.code, lint.output], [0, ''], 'promtool check metrics');
  }
  else t.diagnostic(PROMTOOL_MISSING);
});

test("ShareFetch's checks: group id, member id, acknowledgements in an initial request, session epochs", T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const topicId = await createTopic(conn, 'checks', 1);
  const top = (r: ShareFetchResponseData): [number, string | null] => [r.errorCode, r.errorMessage];
  // Kafka's error answers carry no message (ShareFetchRequest.getErrorResponse).
  assert.deepEqual(top(await conn.request(Api.ShareFetch, { ...fetchRequest('', MEMBER, 0, topicId), groupId: null })), [ErrorCode.INVALID_REQUEST, null]);
  assert.deepEqual(top(await conn.request(Api.ShareFetch, fetchRequest('g', '', 0, topicId))), [ErrorCode.INVALID_REQUEST, null]);
  assert.deepEqual(top(await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 0, topicId, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }]))), [ErrorCode.INVALID_REQUEST, null]);
  // A renewing fetch (v2) must ask for no records.
  assert.deepEqual(top(await conn.request(Api.ShareFetch, { ...fetchRequest('g', MEMBER, 0, topicId), isRenewAck: true }, { version: 2 })), [ErrorCode.INVALID_REQUEST, null]);
  assert.deepEqual(top(await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 4, topicId))), [ErrorCode.SHARE_SESSION_NOT_FOUND, null]);
  await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 0, topicId));
  assert.deepEqual(top(await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 4, topicId))), [ErrorCode.INVALID_SHARE_SESSION_EPOCH, null]);
});

test('a parked ShareFetch is answered when a record is produced', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const topicId = await createTopic(conn, 'park', 1);
  await initialize(conn, 'g', topicId, 0);
  const parked = conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 0, topicId, [], 20_000));
  await new Promise((r) => setTimeout(r, 200));
  await produce(broker.bootstrap, 'park', 0, ['late']);
  assert.deepEqual(values(await parked), ['late']);
});

test('after a restart, accepted records are not delivered again and acquired ones are', T, async (t) => {
  const dir = tempDir();
  let topicId: string;
  {
    const broker = await startBrook({ dataDir: dir.path });
    const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
    topicId = await createTopic(conn, 'durable', 1);
    await initialize(conn, 'g', topicId, 0);
    await produce(broker.bootstrap, 'durable', 0, ['r0', 'r1', 'r2', 'r3']);
    const fetched = await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 0, topicId));
    assert.deepEqual(values(fetched), ['r0', 'r1', 'r2', 'r3']);
    // Accept r0 and r2 (answered once durable); r1 and r3 stay acquired.
    const ack = await conn.request(Api.ShareAcknowledge, { groupId: 'g', memberId: MEMBER, shareSessionEpoch: 1, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }, { firstOffset: 2n, lastOffset: 2n, acknowledgeTypes: [ACCEPT] }] }] }] });
    assert.equal(ack.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
    conn.close();
    await broker.stop();
  }
  const broker = await startBrook({ dataDir: dir.path });
  // After hooks run in order: the broker stops before its directory goes.
  t.after(() => broker.stop());
  t.after(() => dir.remove());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const again = await conn.request(Api.ShareFetch, fetchRequest('g', OTHER, 0, topicId));
  const part = again.responses[0]!.partitions[0]!;
  // r1 and r3 again (their first delivery was never finished); r0 and r2 never again.
  assert.deepEqual(part.acquiredRecords, [{ firstOffset: 1n, lastOffset: 1n, deliveryCount: 1 }, { firstOffset: 3n, lastOffset: 3n, deliveryCount: 1 }]);
});

test('share.isolation.level=read_committed: an aborted transaction is never delivered, an open one waits, a committed one is', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const topicId = await createTopic(conn, 'txn', 1);
  const set = await conn.request(Api.IncrementalAlterConfigs, {
    resources: [{ resourceType: 32, resourceName: 'g', configs: [{ name: 'share.isolation.level', configOperation: 0, value: 'read_committed' }] }], validateOnly: false,
  });
  assert.equal(set.responses[0]!.errorCode, ErrorCode.NONE);
  await initialize(conn, 'g', topicId, 0);
  const producer = new Producer({ bootstrapServers: broker.bootstrap, transactionalId: 'share-txn', lingerMs: 0 });
  t.after(() => producer.close());
  await producer.initTransactions();
  producer.beginTransaction();
  await producer.send({ topic: 'txn', partition: 0, value: 'aborted-1' });
  await producer.send({ topic: 'txn', partition: 0, value: 'aborted-2' });
  await producer.abortTransaction();
  producer.beginTransaction();
  await producer.send({ topic: 'txn', partition: 0, value: 'committed' });
  // Offsets 0-1: aborted data (archived, never acquired); 2: the abort marker (acquired, for the
  // member to acknowledge as a gap); 3: the open transaction's record, past the last stable offset.
  const open = await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 0, topicId));
  assert.deepEqual(open.responses[0]!.partitions[0]!.acquiredRecords, [{ firstOffset: 2n, lastOffset: 2n, deliveryCount: 1 }]);
  await producer.commitTransaction();
  const after = await conn.request(Api.ShareFetch, fetchRequest('g', MEMBER, 1, topicId));
  // 3: 'committed', 4: the commit marker.
  assert.deepEqual(after.responses[0]!.partitions[0]!.acquiredRecords, [{ firstOffset: 3n, lastOffset: 4n, deliveryCount: 1 }]);
  assert.ok(values(after).includes('committed'));
  assert.ok(!values(after).some((v) => v.startsWith('aborted')));
});
