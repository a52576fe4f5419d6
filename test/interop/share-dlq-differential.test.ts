/**
 * Differential conformance of the share groups' dead-letter queue (KIP-1191): the same
 * raw ShareGroupHeartbeat, ShareFetch and ShareAcknowledge script on a real Apache Kafka 4.4
 * broker (share.version 2, its default, writes the DLQ) and on Brook: a record rejected,
 * one released at the delivery count limit, one whose lock runs out at the limit. Then the
 * DLQ topic is read on both and its records compared field by field: key, value, headers,
 * the DLQ partition and offset of each; the timestamp only as "now" (each broker's clock).
 *
 * Two groups: one copies the records (errors.deadletterqueue.copy.record.enable) to a DLQ
 * topic created beforehand with errors.deadletterqueue.group.enable=true; the other does not,
 * and its DLQ topic is created by the broker (errors.deadletterqueue.auto.create.topics.enable).
 * A third names a topic without the required "dlq." prefix: nothing is written, the records
 * are archived all the same.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Side } from '../support/differential/pair.js';
import { testBatch } from '../support/differential/records.js';
import { decodeRecords, readBatchHeader } from '../../src/protocol/records/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const SIDES: readonly Side[] = ['kafka', 'brook'];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;
const A = 'AAAAAAAAAAAAAAAAAAAAAA';

interface DlqRecord { partition: number; offset: string; key: string | null; value: string | null; headers: [string, string | null][]; timestamp: number }

describe('share group dead-letter queue (KIP-1191): Brook writes what Apache Kafka writes', { timeout: 240_000 }, () => {
  let pair: DiffPair;

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start(
      {
        'group.share.heartbeat.interval.ms': '1000',
        'group.share.min.heartbeat.interval.ms': '1000',
        'group.share.assignment.interval.ms': '0',
        'group.share.assignor.offload.enable': 'false',
        'group.share.record.lock.duration.ms': '2000',
        'group.share.min.record.lock.duration.ms': '1000',
        'group.share.delivery.count.limit': '2',
        'group.share.min.delivery.count.limit': '2',
        'errors.deadletterqueue.auto.create.topics.enable': 'true',
        'auto.create.topics.enable': 'false',
        'group.initial.rebalance.delay.ms': '0',
      },
      {
        groupShareHeartbeatIntervalMs: 1000,
        groupShareMinHeartbeatIntervalMs: 1000,
        groupShareAssignmentIntervalMs: 0,
        groupShareRecordLockDurationMs: 2000,
        groupShareMinRecordLockDurationMs: 1000,
        groupShareDeliveryCountLimit: 2,
        groupShareMinDeliveryCountLimit: 2,
        errorsDeadLetterQueueAutoCreateTopicsEnable: true,
        autoCreateTopics: false,
        groupInitialRebalanceDelayMs: 0,
      },
    );
    // Kafka's group coordinator loads asynchronously: heartbeats answer NOT_COORDINATOR until then.
    for (let i = 0; ; i++) {
      const fc = await pair.conn.kafka.request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: ['warm-up'] });
      const d = await pair.conn.kafka.request('ShareGroupDescribe', 1, { groupIds: ['warm-up'], includeAuthorizedOperations: false });
      if ((fc.coordinators ?? []).every((c) => c.errorCode === 0) && d.groups[0]?.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) break;
      if (i > 300) throw new Error(`Kafka's group coordinator did not load\n${pair.kafkaBroker.logTail(30)}`);
      await sleep(50);
    }
  });

  after(async () => {
    await pair?.stop();
  });

  async function setGroupConfigs(group: string, configs: Record<string, string>): Promise<void> {
    const r = await pair.both('IncrementalAlterConfigs', 1, {
      resources: [{ resourceType: 32, resourceName: group, configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })) }], validateOnly: false,
    });
    for (const side of SIDES) assert.equal(r[side].responses[0]!.errorCode, ErrorCode.NONE, `${side}: ${r[side].responses[0]!.errorMessage}`);
  }

  async function topicId(side: Side, name: string): Promise<string> {
    const md = await pair.conn[side].request('Metadata', 12, { topics: [{ name }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    return md.topics[0]!.topicId!;
  }

  async function join(side: Side, group: string, topic: string): Promise<void> {
    let epoch = 0;
    for (let i = 0; ; i++) {
      const r = await pair.conn[side].request('ShareGroupHeartbeat', 1, { groupId: group, memberId: A, memberEpoch: epoch, rackId: null, subscribedTopicNames: epoch === 0 ? [topic] : null });
      assert.equal(r.errorCode, 0, `${side}: ${r.errorMessage}`);
      epoch = r.memberEpoch;
      if ((r.assignment?.topicPartitions.length ?? 0) > 0 && i > 0) return;
      if (i > 100) throw new Error(`${side}: never assigned`);
      await sleep(100);
    }
  }

  /**
   * The script on one side: offsets 0-4; 0 rejected, 1 released twice (the limit), 2-3
   * accepted, 4 left to time out twice. Answers the acquired runs, for comparison.
   */
  async function script(side: Side, group: string, topic: string): Promise<string[]> {
    const conn = pair.conn[side];
    const t = await topicId(side, topic);
    await join(side, group, topic);
    let epoch = 0;
    const seen: string[] = [];
    const fetch = async (acks: { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }[], maxWaitMs = 3000): Promise<void> => {
      const r = await conn.request('ShareFetch', 1, {
        groupId: group, memberId: A, shareSessionEpoch: epoch++, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
        topics: [{ topicId: t, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }], forgottenTopicsData: [],
      });
      assert.equal(r.errorCode, 0, `${side}: ${r.errorMessage}`);
      for (const p of r.responses.flatMap((x) => x.partitions)) {
        assert.equal(p.acknowledgeErrorCode, 0, `${side}: ${p.acknowledgeErrorMessage}`);
        seen.push(...p.acquiredRecords.map((a) => `${a.firstOffset}-${a.lastOffset}@${a.deliveryCount}`));
      }
    };
    const b = (first: number, last: number, type: number) => ({ firstOffset: BigInt(first), lastOffset: BigInt(last), acknowledgeTypes: [type] });
    await fetch([], 100);
    const produced = await conn.request('Produce', 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: testBatch(5) }] }] });
    assert.equal(produced!.responses[0]!.partitionResponses[0]!.errorCode, 0);
    await fetch([]);
    await fetch([b(0, 0, REJECT), b(1, 1, RELEASE), b(2, 3, ACCEPT)]);
    await fetch([b(1, 1, RELEASE)], 500);
    // 4's lock runs out (delivery count 1); again at 2, the limit.
    await sleep(3500);
    await fetch([]);
    await sleep(3500);
    await fetch([], 500);
    return seen;
  }

  async function readDlq(side: Side, topic: string): Promise<DlqRecord[]> {
    const out: DlqRecord[] = [];
    const md = await pair.conn[side].request('Metadata', 12, { topics: [{ name: topic }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    const partitions = md.topics[0]!.partitions.length;
    for (let partition = 0; partition < partitions; partition++) {
      const r = await pair.conn[side].request('Fetch', 12, {
        replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [], rackId: '',
      });
      const p = r.responses[0]!.partitions[0]!;
      assert.equal(p.errorCode, 0, `${side}: fetching ${topic}-${partition}`);
      const buf = p.records ?? Buffer.alloc(0);
      for (let pos = 0; pos < buf.length;) {
        const h = readBatchHeader(buf, pos);
        for (const rec of decodeRecords(buf.subarray(pos, pos + h.sizeInBytes))) {
          out.push({
            partition, offset: String(rec.offset), key: rec.key?.toString('hex') ?? null, value: rec.value?.toString('hex') ?? null,
            headers: rec.headers.map((x) => [x.key, x.value?.toString('utf8') ?? null]), timestamp: Number(rec.timestamp),
          });
        }
        pos += h.sizeInBytes;
      }
    }
    return out;
  }

  async function dlqTopicConfigs(side: Side, topic: string): Promise<Record<string, string | null>> {
    const r = await pair.conn[side].request('DescribeConfigs', 4, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: ['errors.deadletterqueue.group.enable', 'message.timestamp.type'] }], includeSynonyms: false, includeDocumentation: false });
    return Object.fromEntries(r.results[0]!.configs.map((c) => [c.name, c.value]));
  }

  /** Runs the script on both, Kafka first, and answers each side's DLQ records once written. */
  async function run(group: string, topic: string, dlq: string, expectRecords: number): Promise<{ kafka: DlqRecord[]; brook: DlqRecord[]; start: number }> {
    const start = Date.now();
    const seen: Record<string, string[]> = {};
    for (const side of SIDES) seen[side] = await script(side, group, topic);
    assert.deepEqual(seen['brook'], seen['kafka'], 'the acquired records');
    const read = async (side: Side): Promise<DlqRecord[]> => {
      for (let i = 0; ; i++) {
        const exists = (await pair.conn[side].request('Metadata', 12, { topics: [{ name: dlq }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).topics[0]!.errorCode === 0;
        const records = exists ? await readDlq(side, dlq) : [];
        if (records.length >= expectRecords || i > 50) return records;
        await sleep(200);
      }
    };
    return { kafka: await read('kafka'), brook: await read('brook'), start };
  }

  const strip = (records: DlqRecord[]): Omit<DlqRecord, 'timestamp'>[] => records.map(({ timestamp: _t, ...r }) => r);

  it('copies the records to a DLQ topic created beforehand', async () => {
    await pair.createTopic('dlq-src-1', 1);
    await pair.createTopic('dlq.copied', 2, { 'errors.deadletterqueue.group.enable': 'true' });
    await setGroupConfigs('dlq-g1', { 'errors.deadletterqueue.topic.name': 'dlq.copied', 'errors.deadletterqueue.copy.record.enable': 'true', 'share.auto.offset.reset': 'earliest' });
    const { kafka, brook, start } = await run('dlq-g1', 'dlq-src-1', 'dlq.copied', 3);
    assert.equal(kafka.length, 3, `Kafka (the oracle) wrote ${JSON.stringify(kafka)}`);
    assert.deepEqual(strip(brook), strip(kafka));
    for (const r of [...kafka, ...brook]) assert.ok(r.timestamp >= start && r.timestamp <= Date.now(), `a DLQ record is stamped when written: ${r.timestamp}`);
  });

  it('writes headers only to a DLQ topic the broker creates', async () => {
    await pair.createTopic('dlq-src-2', 1);
    await setGroupConfigs('dlq-g2', { 'errors.deadletterqueue.topic.name': 'dlq.created', 'share.auto.offset.reset': 'earliest' });
    const { kafka, brook } = await run('dlq-g2', 'dlq-src-2', 'dlq.created', 3);
    assert.equal(kafka.length, 3, `Kafka (the oracle) wrote ${JSON.stringify(kafka)}`);
    assert.deepEqual(strip(brook), strip(kafka));
    assert.deepEqual(await dlqTopicConfigs('brook', 'dlq.created'), await dlqTopicConfigs('kafka', 'dlq.created'));
  });

  it('a DLQ topic without the prefix: nothing written, the records archived all the same', async () => {
    await pair.createTopic('dlq-src-3', 1);
    await setGroupConfigs('dlq-g3', { 'errors.deadletterqueue.topic.name': 'unprefixed', 'share.auto.offset.reset': 'earliest' });
    const { kafka, brook } = await run('dlq-g3', 'dlq-src-3', 'unprefixed', 0);
    assert.deepEqual({ kafka, brook }, { kafka: [], brook: [] });
    const offsets = await pair.both('DescribeShareGroupOffsets', 1, { groups: [{ groupId: 'dlq-g3', topics: [{ topicName: 'dlq-src-3', partitions: [0] }] }] });
    // Every record is done (lag 0); the start offset written with the last ARCHIVED record is
    // the one before it (Kafka moves it once that write is done).
    const state = (side: Side): unknown => offsets[side].groups[0]!.topics[0]!.partitions.map((q) => [q.startOffset, q.lag, q.errorCode]);
    assert.deepEqual(state('kafka'), [[4n, 0n, 0]], 'Kafka (the oracle)');
    assert.deepEqual(state('brook'), state('kafka'));
  });
});
