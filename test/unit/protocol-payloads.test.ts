/**
 * Consumer-protocol payloads and coordinator records with their version/type prefixes.
 * The expected bytes were produced by Apache Kafka 4.1.2's own classes (test/support/java);
 * 4.4.0's write the same (test/interop/java-conformance compares every version of these messages).
 */
import { decodeConsumerGroupRecord, encodeConsumerGroupRecord, type ConsumerGroupRecord } from '../../src/protocol/coordinator-records/consumer-group-framing.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  encodeSubscription, decodeSubscription, encodeAssignment, decodeAssignment,
} from '../../src/protocol/consumer-protocol.js';
import {
  encodeOffsetCommitKey, encodeOffsetCommitValue, decodeCoordinatorKey, decodeOffsetCommitValue,
  encodeGroupMetadataKey, encodeGroupMetadataValue, decodeGroupMetadataValue, OffsetCommitKey, OffsetCommitValue,
  OFFSET_COMMIT_VALUE_WITH_TOPIC_ID,
} from '../../src/protocol/coordinator-records/index.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { Writer } from '../../src/protocol/primitives/writer.js';

// Kafka: ConsumerProtocolSubscription v3 {topics [a,b], userData null, ownedPartitions [a:[0,1]], generationId 7, rackId "r1"}
const KAFKA_SUBSCRIPTION_V3 = '00000002000161000162ffffffff000000010001610000000200000000000000010000000700027231';
// Kafka: OffsetCommitValue v3 {offset 42, leaderEpoch 5, metadata "m", commitTimestamp 1700000000000}
const KAFKA_OFFSET_COMMIT_VALUE_V3 = '000000000000002a0000000500016d0000018bcfe56800';

test('subscription carries its version and matches Kafka byte for byte', () => {
  const sub = {
    topics: ['a', 'b'], userData: null, ownedPartitions: [{ topic: 'a', partitions: [0, 1] }], generationId: 7, rackId: 'r1',
  };
  const bytes = encodeSubscription(sub, 3);
  assert.equal(bytes.toString('hex'), `0003${KAFKA_SUBSCRIPTION_V3}`);
  assert.deepStrictEqual(decodeSubscription(bytes), { version: 3, subscription: sub });
});

test('a subscription from a newer client is read as the newest version we know', () => {
  const newer = Buffer.concat([Buffer.from('0009', 'hex'), Buffer.from(KAFKA_SUBSCRIPTION_V3, 'hex'), Buffer.from('0102', 'hex')]);
  const { version, subscription } = decodeSubscription(newer);
  assert.equal(version, 9);
  assert.deepStrictEqual(subscription.topics, ['a', 'b']);
  assert.equal(subscription.rackId, 'r1');
});

test('a negative subscription version is a decode error', () => {
  assert.throws(() => decodeSubscription(Buffer.from('ffff', 'hex')), { code: 'ERR_PROTOCOL_DECODE' });
});

test('assignment round trip with user data', () => {
  const assignment = { assignedPartitions: [{ topic: 't', partitions: [2, 5] }], userData: Buffer.from('sticky') };
  const { version, assignment: back } = decodeAssignment(encodeAssignment(assignment));
  assert.equal(version, 3);
  assert.deepStrictEqual(back, assignment);
});

test('offset commit records as Kafka writes them to __consumer_offsets', () => {
  const key = encodeOffsetCommitKey({ group: 'g', topic: 't', partition: 3 });
  assert.equal(key.toString('hex'), '0001' + '0001' + '67' + '0001' + '74' + '00000003');
  assert.deepStrictEqual(decodeCoordinatorKey(key), { kind: 'offset-commit', key: { group: 'g', topic: 't', partition: 3 } });
  const value = { offset: 42n, leaderEpoch: 5, metadata: 'm', commitTimestamp: 1700000000000n, expireTimestamp: -1n, topicId: ZERO_UUID };
  const bytes = encodeOffsetCommitValue(value);
  assert.equal(bytes.toString('hex'), `0003${KAFKA_OFFSET_COMMIT_VALUE_V3}`);
  assert.deepStrictEqual(decodeOffsetCommitValue(bytes), value);
  // Kafka 4.4 writes version 4, flexible, with the topic id as tagged field 0 when it has one
  // (test/interop/java-conformance compares this layout with Kafka's classes).
  const withId = { ...value, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' };
  const v4 = encodeOffsetCommitValue(withId, OFFSET_COMMIT_VALUE_WITH_TOPIC_ID);
  assert.equal(v4.toString('hex'), '0004' + '000000000000002a' + '00000005' + '026d' + '0000018bcfe56800' + '01' + '0010' + '00000000000000000000000000000001');
  assert.deepStrictEqual(decodeOffsetCommitValue(v4), withId);
});

test('offset commit key and v3 and v4 values: the direct encoders write what the generated codecs write', () => {
  const cases = [
    { group: '', topic: '', partition: 0, offset: 0n, leaderEpoch: -1, metadata: '' },
    { group: 'grüppe-ü', topic: 'tópic.名前', partition: 2147483647, offset: 9223372036854775807n, leaderEpoch: 7, metadata: 'mëta' },
    { group: 'g'.repeat(300), topic: 't', partition: -1, offset: -1n, leaderEpoch: 0, metadata: 'x'.repeat(4096) },
  ];
  for (const c of cases) {
    const key = { group: c.group, topic: c.topic, partition: c.partition };
    const generic = new Writer(16).writeInt16(1);
    OffsetCommitKey.write(generic, 0, key);
    assert.deepStrictEqual(encodeOffsetCommitKey(key), generic.toBuffer());
    const value = { offset: c.offset, leaderEpoch: c.leaderEpoch, metadata: c.metadata, commitTimestamp: 1700000000123n, expireTimestamp: -1n, topicId: ZERO_UUID };
    const w = new Writer(16).writeInt16(3);
    OffsetCommitValue.write(w, 3, value);
    assert.deepStrictEqual(encodeOffsetCommitValue(value), w.toBuffer());
    assert.deepStrictEqual(decodeOffsetCommitValue(encodeOffsetCommitValue(value)), value);
    for (const topicId of [ZERO_UUID, 'AAAAAAAAAAAAAAAAAAAAAQ', '_____________________w']) {
      const v4 = { ...value, topicId };
      const generic4 = new Writer(16).writeInt16(4);
      OffsetCommitValue.write(generic4, 4, v4);
      assert.deepStrictEqual(encodeOffsetCommitValue(v4, 4), generic4.toBuffer(), `v4, topic id ${topicId}`);
      assert.deepStrictEqual(decodeOffsetCommitValue(generic4.toBuffer()), v4, `v4 read, topic id ${topicId}`);
    }
  }
  assert.throws(() => encodeOffsetCommitKey({ group: 'g'.repeat(40000), topic: 't', partition: 0 }), RangeError);
});

test('group metadata records round trip; other record types are recognised, not misread', () => {
  const key = encodeGroupMetadataKey({ group: 'g' });
  assert.equal(key.readInt16BE(0), 2);
  assert.deepStrictEqual(decodeCoordinatorKey(key), { kind: 'group-metadata', key: { group: 'g' } });
  const value = {
    protocolType: 'consumer', generation: 4, protocol: 'range', leader: 'm1', currentStateTimestamp: 99n,
    members: [{
      memberId: 'm1', groupInstanceId: null, clientId: 'c', clientHost: '/127.0.0.1', rebalanceTimeout: 300000,
      sessionTimeout: 45000, subscription: Buffer.from([1]), assignment: Buffer.from([2]),
    }],
  };
  assert.deepStrictEqual(decodeGroupMetadataValue(encodeGroupMetadataValue(value)), value);
  // Types 3 to 8 and 16 (resolved regexes) are KIP-848 consumer-group records; 17 and 19 to
  // 23 streams groups' (23: StreamsGroupTopology); a type no schema has is neither.
  assert.equal(decodeCoordinatorKey(Buffer.from('0005abcd', 'hex')).kind, 'consumer-group');
  assert.equal(decodeCoordinatorKey(Buffer.from('0010abcd', 'hex')).kind, 'consumer-group');
  const topology = decodeCoordinatorKey(Buffer.from('0017abcd', 'hex'));
  assert.deepStrictEqual([topology.kind, topology.kind === 'streams-group' ? topology.type : null], ['streams-group', 23]);
  assert.deepStrictEqual(decodeCoordinatorKey(Buffer.from('0009abcd', 'hex')), { kind: 'other', recordType: 9, name: null });
});

test('consumer-group records: the key body is written at version 0 after its type, the value at 0; tombstones have no value', () => {
  const records: ConsumerGroupRecord[] = [
    { type: 3, key: { groupId: 'g' }, value: { epoch: 7, metadataHash: 0n } },
    { type: 5, key: { groupId: 'g', memberId: 'm' }, value: {
      instanceId: null, rackId: 'r', clientId: 'c', clientHost: '/h', subscribedTopicNames: ['a', 'b'], subscribedTopicRegex: '',
      rebalanceTimeoutMs: 300000, serverAssignor: 'range', classicMemberMetadata: null } },
    { type: 8, key: { groupId: 'g', memberId: 'm' }, value: {
      memberEpoch: 3, previousMemberEpoch: 2, state: 1, assignedPartitions: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [0, 2], assignmentEpochs: [3, 2] }], partitionsPendingRevocation: [] } },
    { type: 7, key: { groupId: 'g', memberId: 'm' }, value: null },
    { type: 16, key: { groupId: 'g', regularExpression: 'orders-.*' }, value: { topics: ['orders-a', 'orders-b'], version: 12n, timestamp: 1700000000123n } },
    { type: 16, key: { groupId: 'g', regularExpression: 'orders-.*' }, value: null },
  ];
  for (const record of records) {
    const { key, value } = encodeConsumerGroupRecord(record);
    assert.equal(key.readInt16BE(0), record.type);
    if (value !== null) assert.equal(value.readInt16BE(0), 0);
    const k = decodeCoordinatorKey(key);
    assert.ok(k.kind === 'consumer-group');
    assert.deepStrictEqual(decodeConsumerGroupRecord(k.type, k.keyReader, value), record);
  }
});

test('member metadata without classic metadata: Kafka\'s null marker (varint 0) is written and read; the int8 -1 Brook wrote before is read as null too', () => {
  const record: ConsumerGroupRecord = { type: 5, key: { groupId: 'g', memberId: 'm' }, value: {
    instanceId: null, rackId: null, clientId: 'c', clientHost: '/h', subscribedTopicNames: ['a'], subscribedTopicRegex: '',
    rebalanceTimeoutMs: 300000, serverAssignor: null, classicMemberMetadata: null } };
  const { key, value } = encodeConsumerGroupRecord(record);
  assert.equal(value!.subarray(-4).toString('hex'), '01000100', 'one tagged field: tag 0, 1 byte, varint 0 (null)');
  const legacy = Buffer.from(value!);
  legacy[legacy.length - 1] = 0xff;
  for (const bytes of [value!, legacy]) {
    const k = decodeCoordinatorKey(key);
    assert.ok(k.kind === 'consumer-group');
    assert.deepStrictEqual(decodeConsumerGroupRecord(k.type, k.keyReader, bytes), record);
  }
});

