/**
 * What the ShareConsumer sends, against the scripted broker (test/support/fake-kafka.ts) on
 * a ManualScheduler, as Kafka's client sends it: ShareGroupHeartbeat at epoch 0 with a
 * client-generated member id (Uuid.toString(): 22 characters of base64url) and the
 * subscription; the share session's epochs (0, then the next) with acknowledgements
 * piggybacked on the next ShareFetch, an acquired offset without a record acknowledged as
 * GAP; a fenced member rejoining at epoch 0 with the same id; close() with the final
 * session epoch -1 and the leave heartbeat at epoch -1.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ShareConsumer } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/records/batch-codec.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { FakeKafka, type Request, type SentRequest } from '../support/fake-kafka.js';

const NO_LEADER = { leaderId: -1, leaderEpoch: -1 };

test('heartbeats, share session epochs, piggybacked acknowledgements with a GAP, fencing and close, as Kafka\'s client sends them', { timeout: 20_000 }, async () => {
  const scheduler = new ManualScheduler(1_000);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 1);
  const topicId = fake.topicId('t');
  let epoch = 0;
  fake.on('ShareGroupHeartbeat', (req) => {
    epoch = req.memberEpoch === -1 ? -1 : Math.max(req.memberEpoch, 0) + 1;
    return {
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: epoch, heartbeatIntervalMs: 1_000,
      assignment: req.memberEpoch === 0 ? { topicPartitions: [{ topicId, partitions: [0] }] } : null,
    };
  });
  const fetches: Request<'ShareFetch'>[] = [];
  let first = true;
  fake.on('ShareFetch', async (req) => {
    fetches.push(req);
    const partition = { partitionIndex: 0, errorCode: 0, errorMessage: null, acknowledgeErrorCode: 0, acknowledgeErrorMessage: null, currentLeader: NO_LEADER };
    if (first) {
      first = false;
      // Offsets 0-3 acquired; the records hold 0-2 only: 3 is a gap (a marker, a compacted record).
      const records = encodeRecordBatch({ records: ['a', 'b', 'c'].map((v) => ({ key: null, value: Buffer.from(v), timestamp: 1 })) });
      return {
        throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: 30_000, nodeEndpoints: [],
        responses: [{ topicId, partitions: [{ ...partition, records, acquiredRecords: [{ firstOffset: 0n, lastOffset: 3n, deliveryCount: 1 }] }] }],
      };
    }
    await scheduler.sleep(req.maxWaitMs);
    const acked = req.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0));
    return {
      throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: 30_000, nodeEndpoints: [],
      responses: acked ? [{ topicId, partitions: [{ ...partition, records: Buffer.alloc(0), acquiredRecords: [] }] }] : [],
    };
  });
  fake.on('ShareAcknowledge', (req) => ({
    throttleTimeMs: 0, errorCode: 0, errorMessage: null, acquisitionLockTimeoutMs: 30_000, nodeEndpoints: [],
    responses: req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0, errorMessage: null, currentLeader: NO_LEADER })) })),
  }));

  const consumer = await ShareConsumer.connect({ bootstrapServers: '127.0.0.1:9092', groupId: 'g', scheduler, connectionFactory: fake.connectionFactory });
  consumer.subscribe(['t']);
  const polling = consumer.poll({ timeoutMs: 5_000 });
  let records = await Promise.race([polling, scheduler.advance(100).then(() => polling)]);
  assert.deepEqual(records.map((r) => [r.value!.toString(), r.offset, r.deliveryCount]), [['a', 0n, 1], ['b', 1n, 1], ['c', 2n, 1]]);

  const heartbeats = (): SentRequest<'ShareGroupHeartbeat'>[] => fake.sent.filter((s): s is SentRequest<'ShareGroupHeartbeat'> => s.api === 'ShareGroupHeartbeat');
  const join = heartbeats()[0]!.body;
  assert.match(join.memberId, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  assert.equal(join.memberId, consumer.memberId);
  assert.deepEqual([join.memberEpoch, join.subscribedTopicNames, join.rackId], [0, ['t'], null]);
  assert.equal(fetches[0]!.shareSessionEpoch, 0);
  assert.deepEqual(fetches[0]!.topics, [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }]);
  assert.equal(fetches[0]!.memberId, consumer.memberId);

  // The next poll accepts a-c (implicit mode); the gap at 3 went with them, on the session's next ShareFetch.
  const next = consumer.poll({ timeoutMs: 100 });
  await scheduler.advance(2_000);
  records = await next;
  assert.deepEqual(records, []);
  const withAcks = fetches.find((f) => f.topics.some((t) => t.partitions.some((p) => p.acknowledgementBatches.length > 0)))!;
  assert.ok(withAcks.shareSessionEpoch >= 1);
  assert.deepEqual(withAcks.topics[0]!.partitions[0]!.acknowledgementBatches, [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [1, 1, 1, 0] }]);
  assert.deepEqual(fetches.map((f) => f.shareSessionEpoch), fetches.map((_, i) => i), 'one epoch after the other');
  // A regular heartbeat carries neither the subscription (unchanged) nor the rack.
  const regular = heartbeats()[1]!.body;
  assert.deepEqual([regular.memberEpoch, regular.subscribedTopicNames], [1, null]);

  // Fenced: the member rejoins at once at epoch 0 with the same id and its subscription.
  fake.once('ShareGroupHeartbeat', () => ({
    throttleTimeMs: 0, errorCode: ErrorCode.FENCED_MEMBER_EPOCH, errorMessage: null, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null,
  }));
  const before = heartbeats().length;
  await scheduler.advance(1_000);
  await scheduler.advance(100);
  const rejoin = heartbeats().slice(before + 1)[0]!.body;
  assert.deepEqual([rejoin.memberId, rejoin.memberEpoch, rejoin.subscribedTopicNames], [consumer.memberId, 0, ['t']]);

  const closing = consumer.close({ timeoutMs: 5_000 });
  await scheduler.advance(1_000);
  await closing;
  const final = fake.sent.filter((s) => s.api === 'ShareAcknowledge').at(-1)!.body as Request<'ShareAcknowledge'>;
  assert.equal(final.shareSessionEpoch, -1);
  assert.equal(heartbeats().at(-1)!.body.memberEpoch, -1);
});
