/**
 * Differential conformance of the share coordinator (KIP-932): one scripted sequence of raw
 * InitializeShareGroupState, WriteShareGroupState, ReadShareGroupState,
 * ReadShareGroupStateSummary and DeleteShareGroupState requests goes to a real Apache Kafka
 * broker (the version test/support/kafka starts) and to Brook, and every answer is compared
 * field by field, unnormalised: topic ids are made equal (each topic is created on Kafka,
 * then on Brook with Kafka's id) and the answers hold nothing else either side chooses.
 *
 * Both write a snapshot every 3 updates (share.coordinator.snapshot.update.records.per.snapshot),
 * so the reads after the fourth write of a share-partition read state rebuilt from a
 * snapshot. Kafka gets one `__share_group_state` partition, created by a FindCoordinator for
 * a SHARE key (as its share-partition leaders do) and waited for until loaded.
 *
 * Requests name one topic each: Kafka's service puts a response's topics back together in
 * its HashMap's order, Brook in the request's (docs/ARCHITECTURE.md).
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both } from '../support/differential/pair.js';
import type { ApiName, RequestBody, ResponseBody } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const GROUP = 'share-diff';
const UNKNOWN_TOPIC = 'AAAAAAAAAAAAAAAAAAAAAw';

type StateBatch = { firstOffset: bigint; lastOffset: bigint; deliveryState: number; deliveryCount: number };

function batch(first: number, last: number, deliveryState: number, deliveryCount: number): StateBatch {
  return { firstOffset: BigInt(first), lastOffset: BigInt(last), deliveryState, deliveryCount };
}

describe('share coordinator (KIP-932): Brook answers as Apache Kafka', { timeout: 240_000 }, () => {
  let pair: DiffPair;
  let topicId = '';

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start(
      {
        'share.coordinator.state.topic.num.partitions': '1',
        'share.coordinator.snapshot.update.records.per.snapshot': '3',
        'auto.create.topics.enable': 'false',
      },
      { shareCoordinatorSnapshotUpdateRecordsPerSnapshot: 3, shareCoordinatorStateTopicNumPartitions: 1, autoCreateTopics: false },
    );
    const res = await pair.conn.kafka.request('CreateTopics', 7, {
      topics: [{ name: 'shared', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
    });
    assert.equal(res.topics[0]!.errorCode, 0, res.topics[0]!.errorMessage ?? '');
    topicId = res.topics[0]!.topicId!;
    await pair.waitForKafkaTopic('shared', 3);
    pair.brookBroker.createTopic('shared', 3, { topicId });
    // Kafka creates __share_group_state for a SHARE key's FindCoordinator, then loads it.
    for (let i = 0; ; i++) {
      const fc = await pair.conn.kafka.request('FindCoordinator', 6, { key: '', keyType: 2, coordinatorKeys: [`${GROUP}:${topicId}:0`] });
      const s = await pair.conn.kafka.request('ReadShareGroupStateSummary', 1, { groupId: 'warm-up', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] });
      if ((fc.coordinators ?? []).every((c) => c.errorCode === 0) && s.results[0]?.partitions[0]?.errorCode === ErrorCode.NONE) break;
      if (i > 400) throw new Error(`Kafka's share coordinator did not load\n${pair.kafkaBroker.logTail(30)}`);
      await sleep(50);
    }
  });

  after(async () => {
    await pair?.stop();
  });

  /** The same request to both; Brook's answer must be Kafka's. */
  async function same<N extends ApiName>(api: N, version: number, body: RequestBody<N>, what: string): Promise<Both<ResponseBody<N>>> {
    const [kafka, brook] = await Promise.all([pair.conn.kafka.request(api, version, body), pair.conn.brook.request(api, version, body)]);
    assert.deepStrictEqual(brook, kafka, `${what}: Brook's ${api} v${version} answer differs from Kafka's`);
    return { kafka, brook };
  }

  const initialize = (partitions: { partition: number; stateEpoch: number; startOffset: bigint }[], what: string, topic = topicId) =>
    same('InitializeShareGroupState', 0, { groupId: GROUP, topics: [{ topicId: topic, partitions }] }, what);

  const write = (
    version: number,
    partition: number,
    p: { stateEpoch: number; leaderEpoch: number; startOffset: bigint; deliveryCompleteCount?: number; stateBatches: StateBatch[] },
    what: string,
  ) => same('WriteShareGroupState', version, {
    groupId: GROUP, topics: [{ topicId, partitions: [{ partition, deliveryCompleteCount: -1, ...p }] }],
  }, what);

  const read = (partitions: { partition: number; leaderEpoch: number }[], what: string, topic = topicId) =>
    same('ReadShareGroupState', 0, { groupId: GROUP, topics: [{ topicId: topic, partitions }] }, what);

  const summary = async (partitions: number[], what: string) => {
    const body = { groupId: GROUP, topics: [{ topicId, partitions: partitions.map((partition) => ({ partition, leaderEpoch: 0 })) }] };
    await same('ReadShareGroupStateSummary', 0, body, `${what} (v0)`);
    return same('ReadShareGroupStateSummary', 1, body, `${what} (v1)`);
  };

  it('FindCoordinator for share-partition keys: which keys are valid, at which versions', async () => {
    const keys = [`${GROUP}:${topicId}:0`, `a:b:${topicId}:2`, ` :${topicId}:0`, `${GROUP}:AAAA:0`, `${GROUP}:${topicId}:x`, `${GROUP}:${topicId}:1:`, 'plain'];
    for (const version of [4, 5, 6]) {
      const [kafka, brook] = await Promise.all(['kafka', 'brook'].map((side) =>
        pair.conn[side as 'kafka' | 'brook'].request('FindCoordinator', version, { key: '', keyType: 2, coordinatorKeys: keys })));
      // Node, host and port are each side's own; the error messages are Brook's words for Kafka's codes.
      const shape = (r: typeof kafka) => r!.coordinators!.map((c) => ({ key: c.key, errorCode: c.errorCode, found: c.nodeId >= 0 }));
      assert.deepStrictEqual(shape(brook), shape(kafka), `FindCoordinator v${version}`);
    }
  });

  it('uninitialized share-partitions: summary, read, write and delete', async () => {
    const s = await summary([0, 1, 2], 'nothing initialized');
    assert.equal(s.kafka.results[0]!.partitions[0]!.startOffset, -1n);
    const r = await read([{ partition: 0, leaderEpoch: 0 }], 'read before initialize');
    assert.equal(r.kafka.results[0]!.partitions[0]!.errorCode, ErrorCode.INVALID_REQUEST);
    await write(1, 0, { stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, stateBatches: [] }, 'write before initialize');
    await same('DeleteShareGroupState', 0, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 2 }] }] }, 'delete of nothing');
  });

  it('validation: negative ids and epochs, unknown topics and partitions', async () => {
    await initialize([{ partition: -1, stateEpoch: 0, startOffset: 0n }], 'negative partition');
    await initialize([{ partition: 0, stateEpoch: -1, startOffset: 0n }], 'negative state epoch');
    await initialize([{ partition: 5, stateEpoch: 0, startOffset: 0n }], 'partition past the topic');
    await initialize([{ partition: 0, stateEpoch: 0, startOffset: 0n }], 'unknown topic id', UNKNOWN_TOPIC);
    await read([{ partition: 0, leaderEpoch: -1 }], 'negative leader epoch');
    await read([{ partition: 0, leaderEpoch: 0 }], 'read of an unknown topic', UNKNOWN_TOPIC);
    await write(1, 0, { stateEpoch: 0, leaderEpoch: -1, startOffset: 0n, stateBatches: [] }, 'write with a negative leader epoch');
    await write(0, 0, { stateEpoch: -1, leaderEpoch: 0, startOffset: 0n, stateBatches: [] }, 'write with a negative state epoch');
    await same('DeleteShareGroupState', 0, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: -1 }] }] }, 'delete of a negative partition');
    await same('ReadShareGroupStateSummary', 1, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 9, leaderEpoch: 0 }] }] }, 'summary past the topic');
    await same('WriteShareGroupState', 1, { groupId: '', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1, stateBatches: [] }] }] }, 'no group id');
    await same('ReadShareGroupState', 0, { groupId: GROUP, topics: [] }, 'no topics');
    await same('InitializeShareGroupState', 0, { groupId: GROUP, topics: [{ topicId, partitions: [] }] }, 'a topic without partitions');
  });

  it('initialize, writes across snapshots, reads with new leader epochs, summaries', async () => {
    await initialize([{ partition: 0, stateEpoch: 0, startOffset: 0n }, { partition: 1, stateEpoch: 1, startOffset: -1n }], 'two partitions');
    await summary([0, 1], 'after initialize');
    await read([{ partition: 0, leaderEpoch: 1 }, { partition: 1, leaderEpoch: 0 }], 'first reads');
    const writes: StateBatch[][] = [
      [batch(0, 9, 0, 1)],
      [batch(0, 3, 2, 1), batch(5, 6, 4, 1)],
      [batch(4, 4, 2, 1), batch(7, 12, 0, 2), batch(10, 11, 2, 1)],
      [batch(13, 20, 2, 1)], // the fourth: a snapshot
      [batch(8, 9, 4, 3), batch(21, 21, 0, 1)],
      [],
      [batch(15, 30, 0, 1)],
      [batch(16, 17, 2, 2)], // the eighth: a snapshot again
    ];
    for (const [i, stateBatches] of writes.entries()) {
      await write(i % 2, 0, { stateEpoch: 0, leaderEpoch: 1, startOffset: BigInt(i < 4 ? 0 : i * 2), deliveryCompleteCount: i, stateBatches }, `write ${i + 1}`);
      await read([{ partition: 0, leaderEpoch: 1 }], `read after write ${i + 1}`);
      await summary([0], `summary after write ${i + 1}`);
    }
    await write(1, 0, { stateEpoch: 0, leaderEpoch: 1, startOffset: 3n, deliveryCompleteCount: 9, stateBatches: [batch(40, 45, 2, 1)] }, 'a write behind the start offset');
    const kept = await read([{ partition: 0, leaderEpoch: 1 }], 'the start offset kept');
    const state = kept.kafka.results[0]!.partitions[0]!;
    assert.equal(state.errorCode, ErrorCode.NONE);
    assert.equal(state.startOffset, 14n);
    assert.ok(state.stateBatches.length >= 3, 'state built from a snapshot and updates');
    await summary([0, 1, 2], 'summaries');
  });

  it('leader and state epochs fence older writers', async () => {
    await read([{ partition: 0, leaderEpoch: 4 }], 'a new leader');
    const old = await write(1, 0, { stateEpoch: 0, leaderEpoch: 3, startOffset: -1n, stateBatches: [batch(50, 50, 2, 1)] }, 'the old leader writes');
    assert.equal(old.kafka.results[0]!.partitions[0]!.errorCode, ErrorCode.FENCED_LEADER_EPOCH);
    await read([{ partition: 0, leaderEpoch: 2 }], 'the old leader reads');
    await write(1, 0, { stateEpoch: 0, leaderEpoch: 7, startOffset: -1n, stateBatches: [batch(50, 51, 2, 1)] }, 'a write with a newer leader epoch');
    await summary([0], 'the leader epoch a write leaves');
    await initialize([{ partition: 0, stateEpoch: 3, startOffset: 60n }], 'a new state epoch');
    await read([{ partition: 0, leaderEpoch: 4 }], 'after the new state epoch');
    const stale = await write(1, 0, { stateEpoch: 2, leaderEpoch: 4, startOffset: -1n, stateBatches: [] }, 'a write of the old state epoch');
    assert.equal(stale.kafka.results[0]!.partitions[0]!.errorCode, ErrorCode.FENCED_STATE_EPOCH);
    await initialize([{ partition: 0, stateEpoch: 2, startOffset: 0n }], 'an initialize of an old state epoch');
    await write(1, 0, { stateEpoch: 3, leaderEpoch: 4, startOffset: 61n, deliveryCompleteCount: 1, stateBatches: [batch(61, 70, 2, 1)] }, 'the new incarnation writes');
    await summary([0, 1], 'after fencing');
  });

  it('delete: the state goes, a new incarnation starts from nothing', async () => {
    await same('DeleteShareGroupState', 0, { groupId: GROUP, topics: [{ topicId, partitions: [{ partition: 0 }, { partition: 1 }] }] }, 'delete two');
    await summary([0, 1], 'after delete');
    await read([{ partition: 0, leaderEpoch: 9 }], 'read after delete');
    await initialize([{ partition: 0, stateEpoch: 0, startOffset: 5n }], 'initialize again at state epoch 0');
    await read([{ partition: 0, leaderEpoch: 0 }], 'read of the new incarnation');
    await summary([0], 'summary of the new incarnation');
  });
});
