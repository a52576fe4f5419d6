/**
 * Incremental fetch sessions (KIP-227) against Apache Kafka 4.4.0: the same full and
 * incremental Fetch requests go to both brokers, each side continuing its own session (ids
 * are random, normalised), and the answers are compared field by field, partition order
 * included (an incremental answer lists partitions in the session's order, where those that
 * returned records went to the end). Also the session errors, closing a session, a session
 * emptied by forgotten partitions, and the cache's capacity: both brokers run with
 * max.incremental.fetch.session.cache.slots=8, 8 shards of one session each, filled in turn.
 * Then Brook's consumer on each broker: it opens a session, continues it with consecutive
 * epochs, reads every record once, and closes the session on close().
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both, type Side } from '../support/differential/pair.js';
import { testBatch } from '../support/differential/records.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import type { FetchRequestData, FetchResponseData } from '../../src/protocol/messages/fetch.js';
import { Consumer } from '../../src/index.js';
import { recordingFactory, type FetchExchange } from '../support/fetch-recorder.js';

const SIDES: Side[] = ['kafka', 'brook'];

interface Part { readonly partition: number; readonly offset: bigint }

describe('fetch sessions: Brook vs Apache Kafka 4.4', { timeout: 180_000 }, () => {
  let pair: DiffPair;

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start(
      { 'num.partitions': '1', 'auto.create.topics.enable': 'false', 'max.incremental.fetch.session.cache.slots': '8' },
      { maxIncrementalFetchSessionCacheSlots: 8 },
    );
  });

  after(async () => {
    await pair?.stop();
  });

  function request(side: Side, version: number, topic: string, parts: readonly Part[], session: { id: number; epoch: number }, forgotten: readonly number[] = []): FetchRequestData {
    const topicId = version >= 13 ? pair.normaliser[side].topicId(topic) ?? ZERO_UUID : ZERO_UUID;
    return {
      replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: session.id, sessionEpoch: session.epoch,
      topics: parts.length === 0 ? [] : [{
        topic: version < 13 ? topic : '', topicId,
        partitions: parts.map((p) => ({ partition: p.partition, fetchOffset: p.offset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n })),
      }],
      forgottenTopicsData: forgotten.length === 0 ? [] : [{ topic: version < 13 ? topic : '', topicId, partitions: [...forgotten] }],
      rackId: '',
    };
  }

  /** Sends each side its own request (its own session id) and compares the normalised answers. */
  async function fetchBoth(version: number, build: (side: Side) => FetchRequestData, what: string): Promise<Both<FetchResponseData>> {
    const raw = await pair.both('Fetch', version, { kafka: build('kafka'), brook: build('brook') });
    const c = pair.normalize(raw);
    assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
    return raw;
  }

  const answered = (r: FetchResponseData): number[] => r.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex));

  async function produce(topic: string, partition: number, count: number, first: number): Promise<void> {
    const res = await pair.both('Produce', 9, { transactionalId: null, acks: 1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: partition, records: testBatch(count, { first }) }] }] });
    for (const side of SIDES) assert.equal(res[side]!.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE, `${side}: produce`);
  }

  for (const version of [12, 17]) {
    it(`v${version}: a full request opens a session; incremental requests answer only changed partitions, in the session's order`, async () => {
      const topic = `sessions-v${version}`;
      await pair.createTopic(topic, 3);
      await produce(topic, 0, 3, 0);
      await produce(topic, 2, 2, 100);
      const all = [0, 1, 2].map((partition) => ({ partition, offset: 0n }));
      const full = await fetchBoth(version, (side) => request(side, version, topic, all, { id: 0, epoch: 0 }), 'full request');
      const ids = { kafka: (full.kafka.sessionId ?? 0), brook: (full.brook.sessionId ?? 0) };
      for (const side of SIDES) {
        assert.notEqual(ids[side], 0, `${side} opened a session`);
        assert.deepEqual(answered(full[side]), [0, 1, 2], `${side}: a full answer has every partition`);
      }
      const session = (side: Side, epoch: number): { id: number; epoch: number } => ({ id: ids[side], epoch });

      // The consumer moved on (new offsets for 0 and 2); nothing new anywhere: an empty answer.
      const quiet = await fetchBoth(version, (side) => request(side, version, topic, [{ partition: 0, offset: 3n }, { partition: 2, offset: 2n }], session(side, 1)), 'nothing changed');
      for (const side of SIDES) assert.deepEqual(answered(quiet[side]), [], `${side}: nothing to answer`);

      // Records on partition 1, whose offset the session keeps: only it is answered, from the cached offset.
      await produce(topic, 1, 2, 200);
      const one = await fetchBoth(version, (side) => request(side, version, topic, [], session(side, 2)), 'new records on partition 1');
      for (const side of SIDES) assert.deepEqual(answered(one[side]), [1], `${side}: only partition 1`);

      // The same epoch again: the session expects 3 now.
      const stale = await fetchBoth(version, (side) => request(side, version, topic, [], session(side, 2)), 'repeated epoch');
      for (const side of SIDES) assert.equal(stale[side].errorCode, ErrorCode.INVALID_FETCH_SESSION_EPOCH);

      // Partition 1 returned records, so the session's order is now 0, 2, 1, and partitions
      // that return records keep moving to the end in the order they were answered.
      await produce(topic, 0, 1, 300);
      await produce(topic, 1, 1, 400);
      await produce(topic, 2, 1, 500);
      const order = await fetchBoth(version, (side) => request(side, version, topic, [{ partition: 1, offset: 2n }], session(side, 3)), 'records on every partition');
      for (const side of SIDES) assert.deepEqual(answered(order[side]), [0, 2, 1], `${side}: the session's order`);
      await produce(topic, 0, 1, 600);
      const only0 = await fetchBoth(version, (side) => request(side, version, topic, [0, 1, 2].map((partition) => ({ partition, offset: [4n, 3n, 3n][partition]! })), session(side, 4)), 'records on partition 0');
      for (const side of SIDES) assert.deepEqual(answered(only0[side]), [0], `${side}: only partition 0`);
      await produce(topic, 0, 1, 700);
      await produce(topic, 2, 1, 800);
      const moved = await fetchBoth(version, (side) => request(side, version, topic, [{ partition: 0, offset: 5n }], session(side, 5)), 'moved to the end');
      for (const side of SIDES) assert.deepEqual(answered(moved[side]), [2, 0], `${side}: partition 0 went to the end`);

      // The other naming (by name before v13, by id from v13) is refused.
      const other = version >= 13 ? 12 : 13;
      const mismatch = await fetchBoth(other, (side) => request(side, other, topic, [], session(side, 6)), 'topic naming mismatch');
      for (const side of SIDES) assert.equal(mismatch[side].errorCode, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);

      // Forgetting every partition closes the session: answered without one.
      const emptied = await fetchBoth(version, (side) => request(side, version, topic, [], session(side, 6), [0, 1, 2]), 'every partition forgotten');
      for (const side of SIDES) assert.equal((emptied[side].sessionId ?? 0), 0, `${side}: the emptied session is closed`);
      const gone = await fetchBoth(version, (side) => request(side, version, topic, [], session(side, 7)), 'closed session');
      for (const side of SIDES) assert.equal(gone[side].errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    });
  }

  it('a full request with epoch -1 closes the session it names; one with epoch 0 replaces it', async () => {
    const topic = 'sessions-close';
    await pair.createTopic(topic, 1);
    await produce(topic, 0, 2, 0);
    const parts = [{ partition: 0, offset: 0n }];
    const first = await fetchBoth(12, (side) => request(side, 12, topic, parts, { id: 0, epoch: 0 }), 'open');
    const ids = { kafka: (first.kafka.sessionId ?? 0), brook: (first.brook.sessionId ?? 0) };
    const replaced = await fetchBoth(12, (side) => request(side, 12, topic, parts, { id: ids[side], epoch: 0 }), 'replace');
    for (const side of SIDES) assert.notEqual((replaced[side].sessionId ?? 0), 0);
    const old = await fetchBoth(12, (side) => request(side, 12, topic, [], { id: ids[side], epoch: 1 }), 'replaced session');
    for (const side of SIDES) assert.equal(old[side].errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    const closed = await fetchBoth(12, (side) => request(side, 12, topic, parts, { id: (replaced[side].sessionId ?? 0), epoch: -1 }), 'close');
    for (const side of SIDES) {
      assert.equal((closed[side].sessionId ?? 0), 0);
      assert.deepEqual(answered(closed[side]), [0], `${side}: a closing request is still a full fetch`);
    }
    const after = await fetchBoth(12, (side) => request(side, 12, topic, [], { id: (replaced[side].sessionId ?? 0), epoch: 1 }), 'closed');
    for (const side of SIDES) assert.equal(after[side].errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  });

  it("Brook's consumer: a session opened, continued and closed the same way on both brokers", async () => {
    const topic = 'sessions-consumer';
    await pair.createTopic(topic, 3);
    for (let p = 0; p < 3; p++) await produce(topic, p, 5, p * 10);
    for (const side of SIDES) {
      const { host, port } = side === 'kafka' ? pair.kafkaBroker : pair.brookBroker;
      const exchanges: FetchExchange[] = [];
      const consumer = new Consumer({
        bootstrapServers: `${host}:${port}`, groupId: `sessions-${side}`, autoOffsetReset: 'earliest', fetchMaxWaitMs: 50,
        connectionFactory: recordingFactory(exchanges),
      });
      try {
        consumer.subscribe([topic]);
        const keys: string[] = [];
        const deadline = Date.now() + 30_000;
        // A few polls after the last record, so that incremental requests follow.
        let extra = 0;
        while (extra < 5) {
          assert.ok(Date.now() < deadline, `${side}: consumed ${keys.length} of 15`);
          for (const r of await consumer.poll({ timeoutMs: 100 })) keys.push(`${r.partition}:${r.offset}`);
          if (keys.length >= 15) extra++;
        }
        assert.deepEqual(keys.sort(), [0, 1, 2].flatMap((p) => [0, 1, 2, 3, 4].map((o) => `${p}:${o}`)).sort(), `${side}: every record once`);
        const opened = exchanges.findIndex((e) => (e.answer?.sessionId ?? 0) !== 0);
        assert.ok(opened >= 0, `${side}: a session was opened`);
        const id = exchanges[opened]!.answer!.sessionId;
        const later = exchanges.slice(opened + 1).filter((e) => e.answer !== undefined);
        assert.ok(later.length >= 1, `${side}: incremental requests followed`);
        later.forEach((e, i) => assert.deepEqual([e.sessionId, e.epoch, e.answer!.errorCode], [id, i + 1, ErrorCode.NONE], `${side}: request ${i + 1} of the session`));
        await consumer.close();
        assert.deepEqual([exchanges.at(-1)!.sessionId, exchanges.at(-1)!.epoch, exchanges.at(-1)!.answer?.errorCode], [id, -1, ErrorCode.NONE], `${side}: closed on close()`);
        // The broker no longer knows it.
        const gone = await (side === 'kafka' ? pair.conn.kafka : pair.conn.brook).request('Fetch', 12, request(side, 12, topic, [], { id, epoch: later.length + 1 }));
        assert.equal(gone.errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND, `${side}: the session is gone`);
      } finally {
        await consumer.close();
      }
    }
  });

  it('capacity: 8 slots over 8 shards; a full shard declines a new session (id 0) until its session is closed', async () => {
    // Runs after the tests above, which closed every session they opened.
    const topic = 'sessions-capacity';
    await pair.createTopic(topic, 1);
    const parts = [{ partition: 0, offset: 0n }];
    const opened: Both<number>[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await fetchBoth(12, (side) => request(side, 12, topic, parts, { id: 0, epoch: 0 }), `session ${i}`);
      for (const side of SIDES) assert.notEqual((r[side].sessionId ?? 0), 0, `${side}: session ${i} fits`);
      opened.push({ kafka: (r.kafka.sessionId ?? 0), brook: (r.brook.sessionId ?? 0) });
    }
    // The 9th goes to the first session's shard (shards are used in turn), which is full.
    const ninth = await fetchBoth(12, (side) => request(side, 12, topic, parts, { id: 0, epoch: 0 }), 'a 9th session');
    for (const side of SIDES) assert.equal((ninth[side].sessionId ?? 0), 0, `${side}: no room`);
    // The 10th goes to the second one's shard: free once that session is closed.
    await fetchBoth(12, (side) => request(side, 12, topic, parts, { id: opened[1]![side], epoch: -1 }), 'close the second');
    const tenth = await fetchBoth(12, (side) => request(side, 12, topic, parts, { id: 0, epoch: 0 }), 'a 10th session');
    for (const side of SIDES) assert.notEqual((tenth[side].sessionId ?? 0), 0, `${side}: room again`);
    // The others are still there: their first incremental request is answered.
    const still = await fetchBoth(12, (side) => request(side, 12, topic, [], { id: opened[0]![side], epoch: 1 }), 'an older session');
    for (const side of SIDES) assert.equal(still[side].errorCode, ErrorCode.NONE);
  });
});
