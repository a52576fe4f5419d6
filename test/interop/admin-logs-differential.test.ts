/**
 * Differential conformance of the log admin APIs: DeleteRecords, DescribeLogDirs,
 * DescribeProducers and DescribeTopicPartitions go, as raw requests, to a real Apache Kafka
 * 4.4.0 broker (single-node KRaft) and to Brook (file engine), and the answers are compared
 * field by field after test/support/differential/normalize.ts's normalisations and these:
 *  - DescribeLogDirs: the log directory's path and its volume's total and usable bytes
 *    differ by nature (each broker has its own directory); they are checked for what they
 *    must be (Brook's data directory, absolute; positive sizes, usable <= total) and then
 *    replaced. Partition sizes are compared as they are: both brokers store the same bytes.
 *  - Topics and partitions of DeleteRecords, DescribeLogDirs and DescribeProducers answers,
 *    and the producers of a partition, are sorted: Kafka builds them from hash maps.
 * Also: after DeleteRecords, Fetch below the new log start offset and ListOffsets earliest
 * agree.
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both } from '../support/differential/pair.js';
import { testBatch, withProducerId } from '../support/differential/records.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { ProduceRequestData } from '../../src/protocol/messages/produce.js';
import type { FetchRequestData } from '../../src/protocol/messages/fetch.js';
import type { DeleteRecordsResponseData } from '../../src/protocol/messages/delete-records.js';
import type { DescribeLogDirsResponseData } from '../../src/protocol/messages/describe-log-dirs.js';
import type { DescribeProducersResponseData } from '../../src/protocol/messages/describe-producers.js';
import type { DescribeTopicPartitionsRequestData } from '../../src/protocol/messages/describe-topic-partitions.js';

const errorName = (code: number): string => `${code} ${errorInfo(code).name}`;

function assertSame(c: { diffs: string[] }, what: string): void {
  assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
}

const byKey = <T>(key: (t: T) => string | number) => (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

function sortDeleteRecords(r: DeleteRecordsResponseData): DeleteRecordsResponseData {
  return { ...r, topics: [...r.topics].sort(byKey((t) => t.name)).map((t) => ({ ...t, partitions: [...t.partitions].sort(byKey((p) => p.partitionIndex)) })) };
}

function sortProducers(r: DescribeProducersResponseData): DescribeProducersResponseData {
  return {
    ...r,
    topics: r.topics.map((t) => ({
      ...t,
      partitions: [...t.partitions].sort(byKey((p) => p.partitionIndex))
        .map((p) => ({ ...p, activeProducers: [...p.activeProducers].sort(byKey((x) => x.producerId.toString())) })),
    })),
  };
}

function produceRequest(topic: string, partition: number, records: Buffer): ProduceRequestData {
  return { transactionalId: null, acks: -1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

function fetchRequest(topic: string, partition: number, offset: bigint): FetchRequestData {
  return {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  };
}

describe('log admin APIs: Brook vs Apache Kafka 4.4', { timeout: 180_000 }, () => {
  let pair: DiffPair;

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start({ 'num.partitions': '1', 'auto.create.topics.enable': 'false' });
    // Topic names sort before 'dtp-' so the DescribeTopicPartitions pages below see only theirs.
    await pair.createTopic('drec', 2);
    await pair.createTopic('drec-compact', 1, { 'cleanup.policy': 'compact' });
    for (let i = 0; i < 5; i++) {
      assertSame(pair.normalize(await pair.both('Produce', 9, produceRequest('drec', 0, testBatch(2, { first: i * 2 })))), `produce batch ${i}`);
    }
    assertSame(pair.normalize(await pair.both('Produce', 9, produceRequest('drec', 1, testBatch(3)))), 'produce to partition 1');
  });

  after(async () => {
    await pair?.stop();
  });

  it('ApiVersions: both serve the same versions of the four APIs', async () => {
    const { kafka, brook } = await pair.both('ApiVersions', 3, { clientSoftwareName: 'brook-differential', clientSoftwareVersion: '1.0' });
    const range = (r: typeof kafka, key: number): string => {
      const found = r.apiKeys.find((x) => x.apiKey === key);
      return found ? `${found.minVersion}-${found.maxVersion}` : 'none';
    };
    // DeleteRecords, DescribeLogDirs, DescribeProducers, DescribeTopicPartitions.
    for (const side of [kafka, brook]) assert.deepEqual([21, 35, 61, 75].map((key) => `${key}: ${range(side, key)}`), ['21: 0-2', '35: 1-5', '61: 0-0', '75: 0-0']);
  });

  describe('DeleteRecords', () => {
    it('moves the log start offset: an offset, -1 (the high watermark); answers the low watermark', async () => {
      const c = await pair.both('DeleteRecords', 2, {
        topics: [{ name: 'drec', partitions: [{ partitionIndex: 0, offset: 4n }, { partitionIndex: 1, offset: -1n }] }], timeoutMs: 10_000,
      });
      const n = pair.normalize({ kafka: sortDeleteRecords(c.kafka), brook: sortDeleteRecords(c.brook) });
      assertSame(n, 'DeleteRecords v2');
      assert.deepEqual(sortDeleteRecords(c.brook).topics[0]!.partitions.map((p) => [p.lowWatermark, p.errorCode]), [[4n, 0], [3n, 0]]);
    });

    it('below the log start offset (no change), beyond the high watermark, negative, unknown partition and topic, v0 and v1', async () => {
      for (const version of [0, 1, 2]) {
        const c = await pair.both('DeleteRecords', version, {
          topics: [
            { name: 'drec', partitions: [{ partitionIndex: 0, offset: 2n }, { partitionIndex: 1, offset: 4n }, { partitionIndex: 7, offset: 0n }] },
            { name: 'drec-unknown', partitions: [{ partitionIndex: 0, offset: 0n }] },
          ],
          timeoutMs: 10_000,
        });
        assertSame(pair.normalize({ kafka: sortDeleteRecords(c.kafka), brook: sortDeleteRecords(c.brook) }), `DeleteRecords v${version}`);
        assert.deepEqual(sortDeleteRecords(c.brook).topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.lowWatermark, errorName(p.errorCode)])]), [
          ['drec', [[0, 4n, errorName(ErrorCode.NONE)], [1, -1n, errorName(ErrorCode.OFFSET_OUT_OF_RANGE)], [7, -1n, errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]]],
          ['drec-unknown', [[0, -1n, errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]]],
        ]);
      }
      const negative = await pair.both('DeleteRecords', 2, { topics: [{ name: 'drec', partitions: [{ partitionIndex: 0, offset: -2n }] }], timeoutMs: 10_000 });
      assertSame(pair.normalize(negative), 'offset -2');
    });

    it('a compacted topic: POLICY_VIOLATION', async () => {
      const c = await pair.both('DeleteRecords', 2, { topics: [{ name: 'drec-compact', partitions: [{ partitionIndex: 0, offset: 0n }] }], timeoutMs: 10_000 });
      assertSame(pair.normalize(c), 'compacted topic');
      assert.equal(errorName(c.brook.topics[0]!.partitions[0]!.errorCode), errorName(ErrorCode.POLICY_VIOLATION));
    });

    it('Fetch below the new log start offset is OFFSET_OUT_OF_RANGE; at it, the batch holding it; ListOffsets earliest is it', async () => {
      const below = pair.normalize(await pair.both('Fetch', 12, fetchRequest('drec', 0, 3n)));
      assertSame(below, 'Fetch below the log start offset');
      const at = await pair.both('Fetch', 12, fetchRequest('drec', 0, 4n));
      assertSame(pair.normalize(at), 'Fetch at the log start offset');
      const p = at.brook.responses[0]!.partitions[0]!;
      assert.equal(p.logStartOffset, 4n);
      const earliest = await pair.both('ListOffsets', 7, {
        replicaId: -1, isolationLevel: 0, topics: [{ name: 'drec', partitions: [{ partitionIndex: 0, timestamp: -2n, currentLeaderEpoch: -1 }] }],
      });
      assertSame(pair.normalize(earliest), 'ListOffsets earliest');
      assert.equal(earliest.brook.topics[0]!.partitions[0]!.offset, 4n);
    });

    it('__consumer_offsets: refused with INVALID_TOPIC_EXCEPTION, as Kafka refuses internal topics', async () => {
      // Both create __consumer_offsets at the first FindCoordinator.
      for (const side of ['kafka', 'brook'] as const) {
        for (let i = 0; ; i++) {
          const found = await pair.conn[side].request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: ['drec-group'] });
          if (found.coordinators![0]!.errorCode === ErrorCode.NONE) break;
          assert.ok(i < 150, `${side} has no coordinator: ${errorName(found.coordinators![0]!.errorCode)}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      const c = await pair.both('DeleteRecords', 2, { topics: [{ name: '__consumer_offsets', partitions: [{ partitionIndex: 0, offset: -1n }] }], timeoutMs: 10_000 });
      assertSame(pair.normalize(c), '__consumer_offsets');
      assert.equal(errorName(c.brook.topics[0]!.partitions[0]!.errorCode), errorName(ErrorCode.INVALID_TOPIC_EXCEPTION));
    });
  });

  describe('DescribeLogDirs', () => {
    /** Checks and replaces what differs by nature (see the file's comment); sorts topics and partitions. */
    function normalizeLogDirs(side: 'kafka' | 'brook', r: DescribeLogDirsResponseData, version: number): DescribeLogDirsResponseData {
      assert.equal(r.results.length, 1, `${side}: one log dir`);
      const dir = r.results[0]!;
      if (side === 'brook') assert.equal(dir.logDir, resolve(pair.brookBroker.config.dataDir!));
      if (version >= 4) {
        assert.ok(dir.totalBytes! > 0n && dir.usableBytes! > 0n && dir.usableBytes! <= dir.totalBytes!, `${side}: volume sizes ${dir.totalBytes} ${dir.usableBytes}`);
      }
      const topics = [...dir.topics].sort(byKey((t) => t.name)).map((t) => ({ ...t, partitions: [...t.partitions].sort(byKey((p) => p.partitionIndex)) }));
      return { ...r, results: [{ ...dir, logDir: '<dir>', totalBytes: dir.totalBytes === undefined ? undefined : 1n, usableBytes: dir.usableBytes === undefined ? undefined : 1n, topics }] };
    }

    it('named partitions (an unknown one left out), v1 to v5: the same sizes in bytes; v5\'s IsCordoned false on both', async () => {
      for (const version of [1, 2, 3, 4, 5]) {
        const raw = await pair.both('DescribeLogDirs', version, {
          topics: [{ topic: 'drec', partitions: [0, 1, 7] }, { topic: 'drec-compact', partitions: [0] }, { topic: 'drec-unknown', partitions: [0] }],
        });
        const c = pair.normalize({ kafka: normalizeLogDirs('kafka', raw.kafka, version), brook: normalizeLogDirs('brook', raw.brook, version) });
        assertSame(c, `DescribeLogDirs v${version}`);
        const sizes = raw.brook.results[0]!.topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.partitionSize > 0n]));
        assert.equal(sizes.length, 3);
        if (version >= 5) assert.equal(raw.brook.results[0]!.isCordoned, false);
      }
    });

    it('every partition (topics null): the topics both have', async () => {
      const raw = await pair.both('DescribeLogDirs', 5, { topics: null });
      const mine = (r: DescribeLogDirsResponseData): DescribeLogDirsResponseData => ({
        ...r, results: r.results.map((d) => ({ ...d, topics: d.topics.filter((t) => t.name.startsWith('drec')) })),
      });
      assertSame(pair.normalize({ kafka: normalizeLogDirs('kafka', mine(raw.kafka), 5), brook: normalizeLogDirs('brook', mine(raw.brook), 5) }), 'all partitions');
    });
  });

  describe('DescribeProducers', () => {
    it('an idempotent producer\'s epoch, last sequence and timestamp; partitions without producers; unknown partition, topic and an invalid name', async () => {
      await pair.createTopic('dprod', 2);
      let kafkaInit = await pair.conn.kafka.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000 });
      for (let i = 0; i < 100 && kafkaInit.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS; i++) {
        await new Promise((r) => setTimeout(r, 100));
        kafkaInit = await pair.conn.kafka.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000 });
      }
      const brookInit = await pair.conn.brook.request('InitProducerId', 4, { transactionalId: null, transactionTimeoutMs: 60_000 });
      pair.normaliser.kafka.registerProducerId(kafkaInit.producerId);
      pair.normaliser.brook.registerProducerId(brookInit.producerId);
      const ids: Both<bigint> = { kafka: kafkaInit.producerId, brook: brookInit.producerId };
      // Recent timestamps: both brokers expire producers idle for a day (producer.id.expiration.ms).
      const now = Date.now();
      const batch = (side: 'kafka' | 'brook', sequence: number, count: number): Buffer => encodeRecordBatch({
        records: Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${sequence + i}`), headers: [], timestamp: now + sequence + i })),
        producerId: ids[side], producerEpoch: 0, baseSequence: sequence,
      });
      for (const [sequence, count] of [[0, 3], [3, 2]] as const) {
        const produced = pair.normalize(await pair.both('Produce', 9, {
          kafka: produceRequest('dprod', 0, batch('kafka', sequence, count)), brook: produceRequest('dprod', 0, batch('brook', sequence, count)),
        }));
        assertSame(produced, `idempotent batch at sequence ${sequence}`);
      }
      assertSame(pair.normalize(await pair.both('Produce', 9, produceRequest('dprod', 1, testBatch(2)))), 'plain batch');
      const raw = await pair.both('DescribeProducers', 0, {
        topics: [
          { name: 'dprod', partitionIndexes: [0, 1, 9] },
          { name: 'dprod-unknown', partitionIndexes: [0] },
          { name: 'bad name!', partitionIndexes: [0] },
        ],
      });
      assertSame(pair.normalize({ kafka: sortProducers(raw.kafka), brook: sortProducers(raw.brook) }), 'DescribeProducers');
      const p0 = raw.brook.topics[0]!.partitions.find((p) => p.partitionIndex === 0)!;
      assert.deepEqual(p0.activeProducers.map((p) => [p.producerId, p.producerEpoch, p.lastSequence, p.lastTimestamp, p.coordinatorEpoch, p.currentTxnStartOffset]),
        [[ids.brook, 0, 4, BigInt(now + 4), -1, -1n]]);
      // The stored batches are the same bytes once the producer ids are swapped.
      const fetched = await pair.both('Fetch', 12, fetchRequest('dprod', 0, 0n));
      const records = fetched.brook.responses[0]!.partitions[0]!.records!;
      assert.ok(withProducerId(records, ids.brook, ids.kafka).equals(fetched.kafka.responses[0]!.partitions[0]!.records!), 'same stored batches');
    });
  });

  describe('DescribeTopicPartitions', () => {
    before(async () => {
      await pair.createTopic('dtp-a', 3);
      await pair.createTopic('dtp-b', 2);
      await pair.createTopic('dtp-c', 1);
    });

    const request = (topics: string[], limit: number, cursor: { topicName: string; partitionIndex: number } | null = null): DescribeTopicPartitionsRequestData => ({
      topics: topics.map((name) => ({ name })), responsePartitionLimit: limit, cursor,
    });

    const pages: [string, DescribeTopicPartitionsRequestData][] = [
      ['named topics, an unknown one and an invalid name, no limit reached', request(['dtp-b', 'dtp-a', 'dtp-unknown', 'bad name!', '__transaction_state'], 2000)],
      ['limit 2: a cursor inside the first topic', request(['dtp-a', 'dtp-b', 'dtp-c'], 2)],
      ['from that cursor, limit 2: across two topics', request(['dtp-a', 'dtp-b', 'dtp-c'], 2, { topicName: 'dtp-a', partitionIndex: 2 })],
      ['limit 3: the first topic exactly, the cursor at the next', request(['dtp-a', 'dtp-b', 'dtp-c'], 3)],
      ['limit 5 with an unknown topic after the limit', request(['dtp-a', 'dtp-b', 'dtp-zzz'], 5)],
      ['limit 0 and a negative limit', request(['dtp-a'], 0)],
      ['negative limit', request(['dtp-a'], -5)],
      ['a cursor beyond the topic\'s partitions', request(['dtp-c'], 10, { topicName: 'dtp-c', partitionIndex: 7 })],
      ['a cursor topic not in the list: INVALID_REQUEST', request(['dtp-a', 'dtp-b'], 10, { topicName: 'dtp-aa', partitionIndex: 0 })],
      ['a negative cursor partition: INVALID_REQUEST', request(['dtp-a'], 10, { topicName: 'dtp-a', partitionIndex: -1 })],
      ['all topics from a cursor, limit 4', request([], 4, { topicName: 'dtp-a', partitionIndex: 1 })],
      ['all topics from a cursor at an unknown name, limit 1', request([], 1, { topicName: 'dtp-bb', partitionIndex: 0 })],
    ];
    for (const [what, body] of pages) {
      it(what, async () => {
        const c = await pair.compare('DescribeTopicPartitions', 0, body);
        assertSame(c, what);
      });
    }

    it('paging through every dtp- topic with limit 1 visits each partition once, in order', async () => {
      const seen: string[] = [];
      let cursor: { topicName: string; partitionIndex: number } | null = { topicName: 'dtp-', partitionIndex: 0 };
      for (let i = 0; cursor && i < 20; i++) {
        const c: Awaited<ReturnType<typeof pair.compare<'DescribeTopicPartitions'>>> = await pair.compare('DescribeTopicPartitions', 0, request([], 1, cursor));
        assertSame(c, `page ${i}`);
        for (const t of c.raw.brook.topics) for (const p of t.partitions) seen.push(`${t.name}-${p.partitionIndex}`);
        cursor = c.raw.brook.nextCursor;
      }
      assert.deepEqual(seen, ['dtp-a-0', 'dtp-a-1', 'dtp-a-2', 'dtp-b-0', 'dtp-b-1', 'dtp-c-0']);
    });
  });
});
