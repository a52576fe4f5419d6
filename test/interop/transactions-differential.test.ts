/**
 * Differential conformance of the transaction APIs: InitProducerId, AddPartitionsToTxn,
 * AddOffsetsToTxn, EndTxn, TxnOffsetCommit, WriteTxnMarkers, DescribeTransactions,
 * ListTransactions and DescribeProducers go, as raw requests, to a real Apache Kafka 4.4.0
 * broker (single-node KRaft) and to Brook, at every version both serve, and the answers are
 * compared field by field after test/support/differential/normalize.ts's normalisations
 * (producer ids among them: each broker allocates its own) and these:
 *  - Topics and partitions of AddPartitionsToTxn, TxnOffsetCommit, WriteTxnMarkers,
 *    DescribeTransactions and DescribeProducers answers, and the transactions of
 *    ListTransactions, are sorted: Kafka builds them from hash maps and sets.
 *  - ListTransactions lists every transaction of the broker; only this file's (prefix
 *    `txd-`) are compared.
 *  - DescribeTransactions' transactionStartTimeMs and DescribeProducers' lastTimestamp of a
 *    producer whose last batch is a marker are each broker's clock at the moment it
 *    handled a request; they are checked to lie in the test's time window, then replaced.
 * Requests carry each broker's own producer id (the test keeps both); the transactional
 * ids, epochs and everything else are the same bytes.
 *
 * Both brokers keep their group offsets and transaction state in one partition (Kafka:
 * offsets.topic.num.partitions and transaction.state.log.num.partitions set to 1, Brook's
 * default), so AddOffsetsToTxn adds `__consumer_offsets-0` on both.
 *
 * Timing: EndTxn answers once PrepareCommit/PrepareAbort is durable, the markers follow
 * asynchronously on both; what a request meets in that window (CONCURRENT_TRANSACTIONS or the
 * completed state) depends on the scheduling, so each test waits for Complete* (`settled`)
 * before its next request. CONCURRENT_TRANSACTIONS is compared where it is deterministic:
 * InitProducerId over an Ongoing transaction (fenced and aborted first).
 *
 * Versions: the transaction-version-1 forms both serve (the ApiVersions test pins the
 * ranges); Kafka also serves the broker-to-broker AddPartitionsToTxn v4+. The
 * transaction-version-2 forms (Produce v12, EndTxn v5, TxnOffsetCommit v5) are compared by
 * running Kafka's own producer against both (transactions-java.test.ts).
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import type { ApiName, RequestBody, ResponseBody } from '../support/kafka/raw-client.js';
import { DiffPair, type Both } from '../support/differential/pair.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { ProduceRequestData } from '../../src/protocol/messages/produce.js';

type Side = 'kafka' | 'brook';
const SIDES = ['kafka', 'brook'] as const;
const TIMEOUT_MS = 60_000;
const TOPIC = 'txd';
const GROUP = 'txd-group';

const errorName = (code: number): string => `${code} ${errorInfo(code).name}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const byKey = <T>(key: (t: T) => string | number) => (a: T, b: T): number => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Producer id and epoch of one transactional id on each broker. */
type Producer = Both<{ producerId: bigint; producerEpoch: number }>;

/** Errors that only mean "not ready yet" while a coordinator loads its partition. */
const LOADING = new Set<number>([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE]);

describe('transaction APIs: Brook vs Apache Kafka 4.4', { timeout: 180_000 }, () => {
  let pair: DiffPair;
  let testStart: number;

  /** Sends `body` (the same, or built per side) to both, sorts, normalises, asserts no difference; the raw answers. */
  async function same<N extends ApiName>(
    what: string, api: N, version: number, body: RequestBody<N> | ((side: Side) => RequestBody<N>),
    sort: (r: ResponseBody<N>) => unknown = (r) => r,
  ): Promise<Both<ResponseBody<N>>> {
    const raw = await pair.both(api, version, typeof body === 'function' ? { kafka: body('kafka'), brook: body('brook') } : body);
    const c = pair.normalize({ kafka: sort(raw.kafka), brook: sort(raw.brook) });
    assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
    return raw;
  }

  function learn(producerId: Both<bigint>): void {
    for (const side of SIDES) if (producerId[side] >= 0n) pair.normaliser[side].registerProducerId(producerId[side]);
  }

  /** InitProducerId on both; the answers compared; producer ids learnt. */
  async function init(what: string, transactionalId: string | null, version = 4, extra: (side: Side) => { producerId?: bigint; producerEpoch?: number } = () => ({}), timeoutMs = TIMEOUT_MS): Promise<Both<ResponseBody<'InitProducerId'>>> {
    const raw = await pair.both('InitProducerId', version, {
      kafka: { transactionalId, transactionTimeoutMs: timeoutMs, ...extra('kafka') },
      brook: { transactionalId, transactionTimeoutMs: timeoutMs, ...extra('brook') },
    });
    learn({ kafka: raw.kafka.producerId, brook: raw.brook.producerId });
    const c = pair.normalize(raw);
    assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
    return raw;
  }

  /** A new transactional producer (InitProducerId v4, epoch 0) on both. */
  async function producer(transactionalId: string): Promise<Producer> {
    const r = await init(`InitProducerId ${transactionalId}`, transactionalId);
    assert.equal(errorName(r.kafka.errorCode), errorName(ErrorCode.NONE), `${transactionalId}: Kafka's InitProducerId`);
    return { kafka: { producerId: r.kafka.producerId, producerEpoch: r.kafka.producerEpoch }, brook: { producerId: r.brook.producerId, producerEpoch: r.brook.producerEpoch } };
  }

  function addPartitions(transactionalId: string, p: Producer, topics: [string, number[]][], epochDelta = 0) {
    return (side: Side): RequestBody<'AddPartitionsToTxn'> => ({
      v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: p[side].producerId, v3AndBelowProducerEpoch: p[side].producerEpoch + epochDelta,
      v3AndBelowTopics: topics.map(([name, partitions]) => ({ name, partitions })),
    });
  }

  const sortAddPartitions = (r: ResponseBody<'AddPartitionsToTxn'>): unknown => ({
    ...r,
    resultsByTopicV3AndBelow: [...(r.resultsByTopicV3AndBelow ?? [])].sort(byKey((t) => t.name))
      .map((t) => ({ ...t, resultsByPartition: [...t.resultsByPartition].sort(byKey((x) => x.partitionIndex)) })),
  });

  function endTxn(transactionalId: string, p: Producer, committed: boolean, epochDelta = 0) {
    return (side: Side): RequestBody<'EndTxn'> => ({ transactionalId, producerId: p[side].producerId, producerEpoch: p[side].producerEpoch + epochDelta, committed });
  }

  /** DescribeTransactions with the start time checked and replaced, topics and partitions sorted. */
  const sortDescribe = (r: ResponseBody<'DescribeTransactions'>): unknown => ({
    ...r,
    transactionStates: r.transactionStates.map((s) => {
      const start = Number(s.transactionStartTimeMs);
      if (start > 0) assert.ok(start >= testStart - 1000 && start <= Date.now() + 1000, `transactionStartTimeMs ${start} outside the test's window`);
      return {
        ...s,
        transactionStartTimeMs: start > 0 ? '<time>' : s.transactionStartTimeMs,
        topics: [...s.topics].sort(byKey((t) => t.topic)).map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a - b) })),
      };
    }),
  });

  async function describeTxn(what: string, ...ids: string[]): Promise<Both<ResponseBody<'DescribeTransactions'>>> {
    return same(what, 'DescribeTransactions', 0, { transactionalIds: ids }, sortDescribe);
  }

  /**
   * Waits until the transaction's markers are written on both (Complete* or Empty): EndTxn
   * answers once PrepareCommit/PrepareAbort is durable; markers and the Complete record follow.
   */
  async function settled(transactionalId: string): Promise<void> {
    for (const side of SIDES) {
      for (let i = 0; ; i++) {
        const r = await pair.conn[side].request('DescribeTransactions', 0, { transactionalIds: [transactionalId] });
        const state = r.transactionStates[0]!.transactionState;
        if (!state.startsWith('Prepare')) break;
        assert.ok(i < 200, `${side}: ${transactionalId} stays in ${state}`);
        await sleep(10);
      }
    }
  }

  function produceTxn(transactionalId: string | null, p: Producer, topic: string, partition: number, baseSequence: number, count: number, timestamp: number, isTransactional = transactionalId !== null) {
    return (side: Side): ProduceRequestData => ({
      transactionalId, acks: -1, timeoutMs: 10_000,
      topicData: [{
        name: topic,
        partitionData: [{
          index: partition,
          records: encodeRecordBatch({
            records: Array.from({ length: count }, (_, i) => ({ key: Buffer.from(`k${baseSequence + i}`), value: Buffer.from(`v${baseSequence + i}`), headers: [], timestamp: timestamp + i })),
            producerId: p[side].producerId, producerEpoch: p[side].producerEpoch, baseSequence, isTransactional,
          }),
        }],
      }],
    });
  }

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    testStart = Date.now();
    pair = await DiffPair.start({
      'num.partitions': '1', 'auto.create.topics.enable': 'false',
      'offsets.topic.num.partitions': '1', 'transaction.state.log.num.partitions': '1',
    });
    await pair.createTopic(TOPIC, 3);
    await pair.createTopic('txd-markers', 1);
    await pair.createTopic('txd-producers', 2);
    // Both create their coordinator topics at the first FindCoordinator; Kafka then loads them.
    for (const side of SIDES) {
      for (const [keyType, key] of [[1, 'txd-probe'], [0, GROUP]] as const) {
        for (let i = 0; ; i++) {
          const found = await pair.conn[side].request('FindCoordinator', 4, { key: '', keyType, coordinatorKeys: [key] });
          if (found.coordinators![0]!.errorCode === ErrorCode.NONE) break;
          assert.ok(i < 150, `${side} does not coordinate ${key}: ${errorName(found.coordinators![0]!.errorCode)}`);
          await sleep(100);
        }
      }
      for (let i = 0; ; i++) {
        const r = await pair.conn[side].request('InitProducerId', 4, { transactionalId: 'txd-probe', transactionTimeoutMs: TIMEOUT_MS });
        if (r.errorCode === ErrorCode.NONE) break;
        assert.ok(i < 150 && LOADING.has(r.errorCode), `${side}: InitProducerId while loading: ${errorName(r.errorCode)}`);
        await sleep(100);
      }
    }
  });

  after(async () => {
    await pair?.stop();
  });

  it('ApiVersions: the version ranges of the transaction APIs', async () => {
    const { kafka, brook } = await pair.both('ApiVersions', 3, { clientSoftwareName: 'brook-differential', clientSoftwareVersion: '1.0' });
    const keys = [22, 24, 25, 26, 27, 28, 61, 65, 66];
    const ranges = (r: typeof kafka): string[] => keys.map((key) => {
      const found = r.apiKeys.find((x) => x.apiKey === key);
      return `${key}: ${found ? `${found.minVersion}-${found.maxVersion}` : 'none'}`;
    });
    // Kafka's extra versions: AddPartitionsToTxn v4-5 (broker to broker). Neither serves
    // WriteTxnMarkers v0 (KIP-896), nor InitProducerId v6 (unstable in Kafka 4.4).
    assert.deepEqual(ranges(kafka), ['22: 0-5', '24: 0-5', '25: 0-4', '26: 0-5', '27: 1-2', '28: 0-6', '61: 0-0', '65: 0-0', '66: 0-2']);
    assert.deepEqual(ranges(brook), ['22: 0-5', '24: 0-3', '25: 0-4', '26: 0-5', '27: 1-2', '28: 0-6', '61: 0-0', '65: 0-0', '66: 0-2']);
  });

  describe('InitProducerId', () => {
    it('a new transactional id at every version gets epoch 0; again, the epoch bumps', async () => {
      for (const version of [0, 1, 2, 3, 4, 5]) {
        const id = `txd-init-v${version}`;
        const first = await init(`${id} first`, id, version);
        assert.deepEqual([errorName(first.kafka.errorCode), first.kafka.producerEpoch], [errorName(ErrorCode.NONE), 0]);
        const again = await init(`${id} again`, id, version);
        assert.deepEqual([errorName(again.kafka.errorCode), again.kafka.producerEpoch], [errorName(ErrorCode.NONE), 1]);
      }
    });

    it('without a transactional id (idempotent): a new producer id, epoch 0', async () => {
      for (const version of [0, 2, 4, 5]) {
        const r = await init(`idempotent v${version}`, null, version);
        assert.equal(r.kafka.producerEpoch, 0);
      }
    });

    it('KIP-360: the current id and epoch bump; the previous epoch is a retry; others and another id are fenced', async () => {
      const id = 'txd-kip360';
      const p = await producer(id);
      for (const version of [3, 4, 5]) {
        // Current id and epoch: bump.
        const bumped = await init(`v${version} current epoch`, id, version, (side) => ({ producerId: p[side].producerId, producerEpoch: p[side].producerEpoch }));
        assert.equal(bumped.kafka.producerEpoch, p.kafka.producerEpoch + 1);
        // The epoch before that bump again: Kafka treats it as a retry and answers the same epoch.
        await init(`v${version} retry with the previous epoch`, id, version, (side) => ({ producerId: p[side].producerId, producerEpoch: p[side].producerEpoch }));
        // An epoch from nowhere, another producer id.
        await init(`v${version} a wrong epoch`, id, version, (side) => ({ producerId: p[side].producerId, producerEpoch: p[side].producerEpoch + 7 }));
        await init(`v${version} another producer id`, id, version, (side) => ({ producerId: p[side].producerId + 1000n, producerEpoch: 0 }));
        p.kafka.producerEpoch = bumped.kafka.producerEpoch;
        p.brook.producerEpoch = bumped.brook.producerEpoch;
      }
      // A new transactional id with some producer id and epoch given: nothing to fence yet.
      await init('a new id with a producer id and epoch', 'txd-kip360-new', 4, (side) => ({ producerId: p[side].producerId, producerEpoch: 3 }));
    });

    it('transaction timeouts: above transaction.max.timeout.ms, zero, negative: INVALID_TRANSACTION_TIMEOUT; an empty id: INVALID_REQUEST', async () => {
      for (const timeoutMs of [900_001, 0, -1]) {
        const r = await init(`timeout ${timeoutMs}`, 'txd-timeout', 4, () => ({}), timeoutMs);
        assert.equal(errorName(r.kafka.errorCode), errorName(ErrorCode.INVALID_TRANSACTION_TIMEOUT));
      }
      const ok = await init('timeout 900000', 'txd-timeout', 4, () => ({}), 900_000);
      assert.equal(errorName(ok.kafka.errorCode), errorName(ErrorCode.NONE));
      const empty = await init('empty transactional id', '', 4);
      assert.equal(errorName(empty.kafka.errorCode), errorName(ErrorCode.INVALID_REQUEST));
    });

    it('over an ongoing transaction: CONCURRENT_TRANSACTIONS (the transaction is aborted under a bumped epoch), then a second bump', async () => {
      const id = 'txd-init-ongoing';
      const p = await producer(id);
      await same('add partition', 'AddPartitionsToTxn', 3, addPartitions(id, p, [[TOPIC, [0]]]), sortAddPartitions);
      const r = await init('InitProducerId over Ongoing', id);
      assert.equal(errorName(r.kafka.errorCode), errorName(ErrorCode.CONCURRENT_TRANSACTIONS));
      await settled(id);
      const d = await describeTxn('after the fencing abort', id);
      assert.deepEqual([d.kafka.transactionStates[0]!.transactionState, d.kafka.transactionStates[0]!.producerEpoch], ['CompleteAbort', 1]);
      const again = await init('InitProducerId after the abort', id);
      assert.equal(again.kafka.producerEpoch, 2);
      // The fenced producer's EndTxn.
      await same('EndTxn of the fenced epoch', 'EndTxn', 3, endTxn(id, p, true));
    });
  });

  describe('AddPartitionsToTxn', () => {
    it('v0-v3: adds, adds again, adds more; EndTxn commits; the others fail', async () => {
      for (const version of [0, 1, 2, 3]) {
        const id = `txd-add-v${version}`;
        const p = await producer(id);
        await same(`v${version} add ${TOPIC}-0`, 'AddPartitionsToTxn', version, addPartitions(id, p, [[TOPIC, [0]]]), sortAddPartitions);
        await same(`v${version} add ${TOPIC}-0 again`, 'AddPartitionsToTxn', version, addPartitions(id, p, [[TOPIC, [0]]]), sortAddPartitions);
        await same(`v${version} add ${TOPIC}-1, -2`, 'AddPartitionsToTxn', version, addPartitions(id, p, [[TOPIC, [1, 2]]]), sortAddPartitions);
        await describeTxn(`v${version} Ongoing with three partitions`, id);
        // An unknown partition or topic fails the request: the rest OPERATION_NOT_ATTEMPTED.
        const unknown = await same(`v${version} unknown partition and topic`, 'AddPartitionsToTxn', version,
          addPartitions(id, p, [[TOPIC, [0, 9]], ['txd-unknown', [0]], ['txd-markers', [0]]]), sortAddPartitions);
        assert.ok(JSON.stringify(unknown.kafka).includes(`"partitionErrorCode":${ErrorCode.OPERATION_NOT_ATTEMPTED}`));
        // Internal topics are never writable by a client: TOPIC_AUTHORIZATION_FAILED.
        await same(`v${version} __consumer_offsets`, 'AddPartitionsToTxn', version, addPartitions(id, p, [['__consumer_offsets', [0]], [TOPIC, [0]]]), sortAddPartitions);
        await same(`v${version} a wrong epoch`, 'AddPartitionsToTxn', version, addPartitions(id, p, [[TOPIC, [0]]], 1), sortAddPartitions);
        await same(`v${version} an older epoch`, 'AddPartitionsToTxn', version, addPartitions(id, p, [[TOPIC, [0]]], -1), sortAddPartitions);
        await same(`v${version} another producer id`, 'AddPartitionsToTxn', version,
          (side) => ({ ...addPartitions(id, p, [[TOPIC, [0]]])(side), v3AndBelowProducerId: p[side].producerId + 1000n }), sortAddPartitions);
        await same(`v${version} unknown transactional id`, 'AddPartitionsToTxn', version, addPartitions(`${id}-unknown`, p, [[TOPIC, [0]]]), sortAddPartitions);
        await same(`v${version} an empty transactional id`, 'AddPartitionsToTxn', version, addPartitions('', p, [[TOPIC, [0]]]), sortAddPartitions);
        await same(`v${version} commit`, 'EndTxn', 3, endTxn(id, p, true));
        // While the markers go out (PrepareCommit) or after (CompleteCommit): only the latter is
        // deterministic, so wait for it.
        await settled(id);
        await describeTxn(`v${version} CompleteCommit`, id);
      }
    });
  });

  describe('EndTxn', () => {
    it('v0-v4: commit and abort an ongoing transaction; retries; the wrong end; abort and commit with nothing added', async () => {
      for (const version of [0, 1, 2, 3, 4]) {
        const id = `txd-end-v${version}`;
        const p = await producer(id);
        await same(`v${version} abort of an Empty transaction`, 'EndTxn', version, endTxn(id, p, false));
        await same(`v${version} commit of an Empty transaction`, 'EndTxn', version, endTxn(id, p, true));
        await same(`v${version} add`, 'AddPartitionsToTxn', 3, addPartitions(id, p, [[TOPIC, [1]]]), sortAddPartitions);
        await same(`v${version} a wrong epoch`, 'EndTxn', version, endTxn(id, p, true, 1));
        await same(`v${version} an older epoch`, 'EndTxn', version, endTxn(id, p, true, -1));
        await same(`v${version} another producer id`, 'EndTxn', version, (side) => ({ ...endTxn(id, p, true)(side), producerId: p[side].producerId + 1000n }));
        await same(`v${version} unknown transactional id`, 'EndTxn', version, endTxn(`${id}-unknown`, p, true));
        await same(`v${version} an empty transactional id`, 'EndTxn', version, endTxn('', p, true));
        await same(`v${version} commit`, 'EndTxn', version, endTxn(id, p, true));
        await settled(id);
        await same(`v${version} commit again (a retry)`, 'EndTxn', version, endTxn(id, p, true));
        await same(`v${version} abort after commit: INVALID_TXN_STATE`, 'EndTxn', version, endTxn(id, p, false));
        await same(`v${version} add again`, 'AddPartitionsToTxn', 3, addPartitions(id, p, [[TOPIC, [1]]]), sortAddPartitions);
        await same(`v${version} abort`, 'EndTxn', version, endTxn(id, p, false));
        await settled(id);
        await describeTxn(`v${version} CompleteAbort`, id);
        await same(`v${version} abort again (a retry)`, 'EndTxn', version, endTxn(id, p, false));
        await same(`v${version} commit after abort: INVALID_TXN_STATE`, 'EndTxn', version, endTxn(id, p, true));
      }
    });
  });

  describe('AddOffsetsToTxn and TxnOffsetCommit', () => {
    /** A classic group with one member on both; its member ids and generation. */
    async function joinGroup(group: string): Promise<{ memberId: Both<string>; generationId: number }> {
      const join = (memberId: string): RequestBody<'JoinGroup'> => ({
        groupId: group, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId, groupInstanceId: null, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
      });
      const first = await pair.both('JoinGroup', 9, join(''));
      const joined = await pair.both('JoinGroup', 9, { kafka: join(first.kafka.memberId), brook: join(first.brook.memberId) });
      const memberId = { kafka: joined.kafka.memberId, brook: joined.brook.memberId };
      await pair.both('SyncGroup', 5, {
        kafka: { groupId: group, generationId: joined.kafka.generationId, memberId: memberId.kafka, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] },
        brook: { groupId: group, generationId: joined.brook.generationId, memberId: memberId.brook, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] },
      });
      assert.equal(joined.brook.generationId, joined.kafka.generationId);
      return { memberId, generationId: joined.kafka.generationId };
    }

    function addOffsets(transactionalId: string, p: Producer, groupId: string, epochDelta = 0) {
      return (side: Side): RequestBody<'AddOffsetsToTxn'> => ({ transactionalId, producerId: p[side].producerId, producerEpoch: p[side].producerEpoch + epochDelta, groupId });
    }

    function txnCommit(transactionalId: string, p: Producer, groupId: string, offsets: [string, number, bigint][], member: { memberId: Both<string> | string; generationId: number } = { memberId: '', generationId: -1 }) {
      return (side: Side): RequestBody<'TxnOffsetCommit'> => ({
        transactionalId, groupId, producerId: p[side].producerId, producerEpoch: p[side].producerEpoch,
        generationIdOrMemberEpoch: member.generationId, memberId: typeof member.memberId === 'string' ? member.memberId : member.memberId[side], groupInstanceId: null,
        topics: [...new Set(offsets.map(([t]) => t))].map((name) => ({
          name, partitions: offsets.filter(([t]) => t === name).map(([, partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: 'm' })),
        })),
      });
    }

    const sortTxnCommit = (r: ResponseBody<'TxnOffsetCommit'>): unknown => ({
      ...r, topics: [...r.topics].sort(byKey((t) => t.name ?? '')).map((t) => ({ ...t, partitions: [...t.partitions].sort(byKey((x) => x.partitionIndex)) })),
    });

    async function fetchOffsets(what: string, groupId: string): Promise<void> {
      await same(what, 'OffsetFetch', 8, {
        groups: [{ groupId, topics: [{ name: TOPIC, partitionIndexes: [0, 1, 2] }] }], requireStable: true,
      } as RequestBody<'OffsetFetch'>);
    }

    it('AddOffsetsToTxn v0-v4: adds the group\'s partition; wrong epoch, producer id, unknown id', async () => {
      for (const version of [0, 1, 2, 3, 4]) {
        const id = `txd-offsets-v${version}`;
        const p = await producer(id);
        await same(`v${version} add offsets`, 'AddOffsetsToTxn', version, addOffsets(id, p, GROUP));
        await describeTxn(`v${version} Ongoing with __consumer_offsets`, id);
        await same(`v${version} a wrong epoch`, 'AddOffsetsToTxn', version, addOffsets(id, p, GROUP, 1));
        await same(`v${version} another producer id`, 'AddOffsetsToTxn', version, (side) => ({ ...addOffsets(id, p, GROUP)(side), producerId: p[side].producerId + 1000n }));
        await same(`v${version} unknown transactional id`, 'AddOffsetsToTxn', version, addOffsets(`${id}-unknown`, p, GROUP));
        await same(`v${version} an empty transactional id`, 'AddOffsetsToTxn', version, addOffsets('', p, GROUP));
        await same(`v${version} abort`, 'EndTxn', 3, endTxn(id, p, false));
        await settled(id);
      }
    });

    it('TxnOffsetCommit v0-v4 without a group member: committed by EndTxn, invisible until then; unknown partitions', async () => {
      for (const version of [0, 1, 2, 3, 4]) {
        const id = `txd-txncommit-v${version}`;
        const group = `txd-group-v${version}`;
        const p = await producer(id);
        await same(`v${version} AddOffsetsToTxn`, 'AddOffsetsToTxn', 3, addOffsets(id, p, group));
        await same(`v${version} TxnOffsetCommit`, 'TxnOffsetCommit', version, txnCommit(id, p, group, [[TOPIC, 0, 5n], [TOPIC, 1, 7n]]), sortTxnCommit);
        await same(`v${version} unknown partition and topic`, 'TxnOffsetCommit', version, txnCommit(id, p, group, [[TOPIC, 9, 1n], ['txd-unknown', 0, 1n], [TOPIC, 2, 3n]]), sortTxnCommit);
        await fetchOffsets(`v${version} pending offsets: UNSTABLE_OFFSET_COMMIT`, group);
        await same(`v${version} commit`, 'EndTxn', 3, endTxn(id, p, true));
        await settled(id);
        await fetchOffsets(`v${version} committed offsets`, group);
      }
    });

    it('TxnOffsetCommit without AddOffsetsToTxn first; aborted offsets are dropped', async () => {
      const id = 'txd-txncommit-unadded';
      const group = 'txd-group-unadded';
      const p = await producer(id);
      for (const version of [0, 3, 4]) {
        await same(`v${version} without AddOffsetsToTxn, no transaction`, 'TxnOffsetCommit', version, txnCommit(id, p, group, [[TOPIC, 0, 5n], ['txd-unknown', 0, 1n]]), sortTxnCommit);
      }
      await same('a transaction of other partitions', 'AddPartitionsToTxn', 3, addPartitions(id, p, [[TOPIC, [0]]]), sortAddPartitions);
      for (const version of [0, 3, 4]) {
        await same(`v${version} without AddOffsetsToTxn, in a transaction`, 'TxnOffsetCommit', version, txnCommit(id, p, group, [[TOPIC, 0, 6n]]), sortTxnCommit);
        await same(`v${version} a wrong epoch`, 'TxnOffsetCommit', version, (side) => ({ ...txnCommit(id, p, group, [[TOPIC, 0, 6n]])(side), producerEpoch: p[side].producerEpoch + 1 }), sortTxnCommit);
        await same(`v${version} another producer id`, 'TxnOffsetCommit', version, (side) => ({ ...txnCommit(id, p, group, [[TOPIC, 0, 6n]])(side), producerId: p[side].producerId + 1000n }), sortTxnCommit);
        await same(`v${version} an empty group id`, 'TxnOffsetCommit', version, txnCommit(id, p, '', [[TOPIC, 0, 6n]]), sortTxnCommit);
      }
      await same('AddOffsetsToTxn', 'AddOffsetsToTxn', 3, addOffsets(id, p, group));
      await same('TxnOffsetCommit', 'TxnOffsetCommit', 3, txnCommit(id, p, group, [[TOPIC, 0, 7n]]), sortTxnCommit);
      await same('abort', 'EndTxn', 3, endTxn(id, p, false));
      await settled(id);
      await fetchOffsets('aborted offsets', group);
    });

    it('TxnOffsetCommit with a member: its generation commits; a wrong generation, an unknown member, an empty group', async () => {
      const id = 'txd-txncommit-member';
      const group = 'txd-group-member';
      const p = await producer(id);
      const member = await joinGroup(group);
      await same('AddOffsetsToTxn', 'AddOffsetsToTxn', 3, addOffsets(id, p, group));
      for (const version of [3, 4]) {
        await same(`v${version} the member`, 'TxnOffsetCommit', version, txnCommit(id, p, group, [[TOPIC, 0, 11n]], member), sortTxnCommit);
        await same(`v${version} a wrong generation`, 'TxnOffsetCommit', version, txnCommit(id, p, group, [[TOPIC, 0, 12n]], { ...member, generationId: member.generationId + 1 }), sortTxnCommit);
        await same(`v${version} an unknown member`, 'TxnOffsetCommit', version, txnCommit(id, p, group, [[TOPIC, 0, 13n]], { memberId: 'txd-nobody', generationId: member.generationId }), sortTxnCommit);
        await same(`v${version} a member of an unknown group`, 'TxnOffsetCommit', version, txnCommit(id, p, 'txd-group-none', [[TOPIC, 0, 13n]], { memberId: 'txd-nobody', generationId: 1 }), sortTxnCommit);
      }
      await same('commit', 'EndTxn', 3, endTxn(id, p, true));
      await settled(id);
      await fetchOffsets('committed offsets of the member', group);
    });
  });

  it('TxnOffsetCommit v5-v6 (transaction version 2: the group joins the transaction itself); v6 by topic id: known, unknown and zero ids; a member of an unknown group', async () => {
    const id = 'txd-txncommit-v6';
    const group = 'txd-group-v6';
    const p = await producer(id);
    const base = (side: Side, version: number, topics: RequestBody<'TxnOffsetCommit'>['topics'], member = { memberId: '', generationId: -1 }, groupId = group): RequestBody<'TxnOffsetCommit'> => ({
      transactionalId: id, groupId, producerId: p[side].producerId, producerEpoch: p[side].producerEpoch,
      generationIdOrMemberEpoch: member.generationId, memberId: member.memberId, groupInstanceId: null, topics,
    });
    const partitions = (offsets: [number, bigint][]) => offsets.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: 'm' }));
    const byId = (topicId: (side: Side) => string, offsets: [number, bigint][]) => (side: Side): RequestBody<'TxnOffsetCommit'> =>
      base(side, 6, [{ topicId: topicId(side), partitions: partitions(offsets) }]);
    const sortById = (r: ResponseBody<'TxnOffsetCommit'>): unknown => ({
      ...r, topics: r.topics.map((t) => ({ ...t, partitions: [...t.partitions].sort(byKey((x) => x.partitionIndex)) })),
    });
    const known = await same('v6 by topic id (a partition out of range too)', 'TxnOffsetCommit', 6, byId((side) => pair.normaliser[side].topicId(TOPIC)!, [[0, 5n], [9, 1n]]), sortById);
    assert.deepEqual(known.brook.topics.flatMap((t) => t.partitions).map((x) => [x.partitionIndex, errorName(x.errorCode)]).sort(),
      [[0, errorName(ErrorCode.NONE)], [9, errorName(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)]]);
    for (const [what, topicId] of [['an unknown topic id', 'AAAAAAAAAAAAAAAAAAAAAQ'], ['the zero topic id', 'AAAAAAAAAAAAAAAAAAAAAA']] as const) {
      const c = await same(`v6 ${what}`, 'TxnOffsetCommit', 6, byId(() => topicId, [[0, 1n]]), sortById);
      assert.equal(errorName(c.brook.topics[0]!.partitions[0]!.errorCode), errorName(ErrorCode.UNKNOWN_TOPIC_ID), what);
    }
    await same('v5 by name', 'TxnOffsetCommit', 5, (side) => base(side, 5, [{ name: TOPIC, partitions: partitions([[1, 7n]]) }]), sortById);
    // KIP-1319: from v6 a member of a group that does not exist is GROUP_ID_NOT_FOUND (before: ILLEGAL_GENERATION).
    for (const version of [5, 6]) {
      const topics = (side: Side): RequestBody<'TxnOffsetCommit'>['topics'] => (version >= 6 ? [{ topicId: pair.normaliser[side].topicId(TOPIC)!, partitions: partitions([[2, 3n]]) }] : [{ name: TOPIC, partitions: partitions([[2, 3n]]) }]);
      const c = await same(`v${version} a member of an unknown group`, 'TxnOffsetCommit', version, (side) => base(side, version, topics(side), { memberId: 'txd-nobody', generationId: 1 }, 'txd-group-none'), sortById);
      assert.equal(errorName(c.brook.topics[0]!.partitions[0]!.errorCode), errorName(version >= 6 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION));
    }
    await fetchOffsetsOf('pending offsets: UNSTABLE_OFFSET_COMMIT', group);
    await same('commit (EndTxn v5)', 'EndTxn', 5, endTxn(id, p, true));
    await settled(id);
    await fetchOffsetsOf('committed offsets', group);
  });

  async function fetchOffsetsOf(what: string, groupId: string): Promise<void> {
    await same(what, 'OffsetFetch', 8, { groups: [{ groupId, topics: [{ name: TOPIC, partitionIndexes: [0, 1, 2] }] }], requireStable: true } as RequestBody<'OffsetFetch'>);
  }

  describe('WriteTxnMarkers', () => {
    it('v1: a marker for a producer the partition has never seen; an unknown partition and topic', async () => {
      for (const version of [1]) {
        const raw = await same(`v${version}`, 'WriteTxnMarkers', version, {
          markers: [{
            producerId: 424_242n, producerEpoch: 0, transactionResult: true, coordinatorEpoch: 0,
            topics: [{ name: 'txd-markers', partitionIndexes: [0, 5] }, { name: 'txd-unknown', partitionIndexes: [0] }],
          }],
        }, (r) => ({ ...r, markers: r.markers.map((m) => ({ ...m, topics: [...m.topics].sort(byKey((t) => t.name)).map((t) => ({ ...t, partitions: [...t.partitions].sort(byKey((x) => x.partitionIndex)) })) })) }));
        assert.ok(raw.kafka.markers.length === 1);
      }
      await same('the partition\'s end offsets (ListOffsets)', 'ListOffsets', 7, {
        replicaId: -1, isolationLevel: 1, topics: [{ name: 'txd-markers', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }],
      });
    });

    it('v2 (KIP-1228): under transaction version 2 a marker needs an epoch newer than the producer\'s, but for a retry of the last one', async () => {
      const id = 'txd-markers-v2';
      const p = await producer(id);
      await same('add the partition', 'AddPartitionsToTxn', 3, addPartitions(id, p, [['txd-markers', [0]]]), sortAddPartitions);
      await same('transactional records', 'Produce', 9, produceTxn(id, p, 'txd-markers', 0, 0, 2, Date.now()));
      const marker = (epochDelta: number, transactionVersion: number) => (side: Side): RequestBody<'WriteTxnMarkers'> => ({
        markers: [{
          producerId: p[side].producerId, producerEpoch: p[side].producerEpoch + epochDelta, transactionResult: false, coordinatorEpoch: 0, transactionVersion,
          topics: [{ name: 'txd-markers', partitionIndexes: [0] }],
        }],
      });
      const codes = (r: ResponseBody<'WriteTxnMarkers'>): string[] => r.markers.flatMap((m) => m.topics.flatMap((t) => t.partitions.map((x) => errorName(x.errorCode))));
      const cases: [string, number, number, number][] = [
        ['TV2, the producer\'s own epoch', 0, 2, ErrorCode.INVALID_PRODUCER_EPOCH],
        ['TV2, a newer epoch', 1, 2, ErrorCode.NONE],
        ['TV2, the same again (a retry)', 1, 2, ErrorCode.NONE],
        ['TV1 at v2, an older epoch', 0, 1, ErrorCode.INVALID_PRODUCER_EPOCH],
      ];
      for (const [what, epochDelta, tv, expected] of cases) {
        const raw = await same(`v2 ${what}`, 'WriteTxnMarkers', 2, marker(epochDelta, tv));
        assert.deepEqual(codes(raw.brook), [errorName(expected)], what);
      }
      await same('the partition\'s end offsets (ListOffsets)', 'ListOffsets', 7, {
        replicaId: -1, isolationLevel: 1, topics: [{ name: 'txd-markers', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }],
      });
      // The partition is at the newer epoch now, which an EndTxn marker at the producer's own
      // epoch would not pass: the coordinator fences the transaction instead (InitProducerId
      // over it), aborting it under a bumped epoch, which the partition takes.
      const fenced = await init('InitProducerId over the transaction', id);
      assert.equal(errorName(fenced.brook.errorCode), errorName(ErrorCode.CONCURRENT_TRANSACTIONS));
      await settled(id);
    });
  });

  describe('DescribeTransactions and ListTransactions', () => {
    it('DescribeTransactions: unknown and empty ids, Empty, Ongoing with its topics, several at once', async () => {
      const p = await producer('txd-describe');
      await describeTxn('unknown, empty and Empty', 'txd-describe-unknown', '', 'txd-describe');
      await same('add', 'AddPartitionsToTxn', 3, addPartitions('txd-describe', p, [[TOPIC, [2, 0]], ['txd-markers', [0]]]), sortAddPartitions);
      await describeTxn('Ongoing', 'txd-describe', 'txd-describe-unknown');
      await same('abort', 'EndTxn', 3, endTxn('txd-describe', p, false));
      await settled('txd-describe');
    });

    it('ListTransactions v0-v2: state, producer id, duration and transactional id pattern filters; unknown states', async () => {
      const ongoing = await producer('txd-list-ongoing');
      await same('add', 'AddPartitionsToTxn', 3, addPartitions('txd-list-ongoing', ongoing, [[TOPIC, [0]]]), sortAddPartitions);
      await producer('txd-list-empty');
      // Kafka's duration filter compares with the start strictly: let a millisecond pass.
      await sleep(5);
      const mine = (r: ResponseBody<'ListTransactions'>): unknown => ({
        ...r, transactionStates: r.transactionStates.filter((t) => t.transactionalId.startsWith('txd-')).sort(byKey((t) => t.transactionalId)),
      });
      const filters: [string, (side: Side) => RequestBody<'ListTransactions'>][] = [
        ['all', () => ({ stateFilters: [], producerIdFilters: [] })],
        ['Ongoing', () => ({ stateFilters: ['Ongoing'], producerIdFilters: [] })],
        ['Empty and CompleteCommit', () => ({ stateFilters: ['Empty', 'CompleteCommit'], producerIdFilters: [] })],
        ['an unknown state only', () => ({ stateFilters: ['Bogus'], producerIdFilters: [] })],
        ['an unknown and a known state', () => ({ stateFilters: ['Bogus', 'Ongoing'], producerIdFilters: [] })],
        ['a producer id', (side) => ({ stateFilters: [], producerIdFilters: [ongoing[side].producerId] })],
        ['a producer id and another state', (side) => ({ stateFilters: ['Empty'], producerIdFilters: [ongoing[side].producerId] })],
        ['an unknown producer id', () => ({ stateFilters: [], producerIdFilters: [987_654_321n] })],
      ];
      for (const version of [0, 1]) {
        for (const [what, body] of filters) await same(`v${version} ${what}`, 'ListTransactions', version, body, mine);
      }
      for (const [what, durationFilter] of [['running longer than 0 ms', 0n], ['longer than an hour', 3_600_000n], ['no filter (-1)', -1n]] as const) {
        await same(`v1 ${what}`, 'ListTransactions', 1, { stateFilters: [], producerIdFilters: [], durationFilter }, mine);
      }
      // v2 (KIP-1152): ids matching a regular expression in full (RE2); empty or null: all.
      const patterns: [string, string | null][] = [
        ['no pattern', null], ['an empty pattern', ''], ['a pattern', 'txd-list-.*'], ['one id', 'txd-list-ongoing'],
        ['a prefix only (no match)', 'txd-list'], ['an invalid pattern', '(txd'],
      ];
      for (const [what, transactionalIdPattern] of patterns) {
        await same(`v2 ${what}`, 'ListTransactions', 2, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern }, mine);
      }
      await same('v2 a pattern and a state', 'ListTransactions', 2, { stateFilters: ['Ongoing'], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: 'txd-list-.*' }, mine);
      await same('abort', 'EndTxn', 3, endTxn('txd-list-ongoing', ongoing, false));
      await settled('txd-list-ongoing');
    });
  });

  describe('DescribeProducers', () => {
    const sortProducers = (r: ResponseBody<'DescribeProducers'>): unknown => ({
      ...r,
      topics: [...r.topics].sort(byKey((t) => t.name)).map((t) => ({
        ...t,
        partitions: [...t.partitions].sort(byKey((x) => x.partitionIndex)).map((x) => ({
          ...x,
          activeProducers: [...x.activeProducers].sort(byKey((a) => a.producerId.toString())).map((a) => {
            // A marker's timestamp is the coordinator's clock when it wrote it.
            const t = Number(a.lastTimestamp);
            if (t < testStart) return a;
            assert.ok(t <= Date.now() + 1000, `lastTimestamp ${t} in the future`);
            return { ...a, lastTimestamp: '<time>' };
          }),
        })),
      })),
    });
    const describeProducers = (what: string): Promise<unknown> => same(what, 'DescribeProducers', 0, {
      topics: [{ name: 'txd-producers', partitionIndexes: [0, 1, 7] }, { name: 'txd-unknown', partitionIndexes: [0] }],
    }, sortProducers);

    it('a transaction\'s open batch (currentTxnStartOffset), its marker; an idempotent producer; a transactional batch outside the transaction', async () => {
      const id = 'txd-producers';
      const p = await producer(id);
      // Record timestamps before the test started: lastTimestamp of a data batch is compared as it is.
      const ts = testStart - 60_000;
      // KIP-890 part 1: a transactional batch for a partition not in the transaction.
      const outside = await same('outside the transaction', 'Produce', 9, produceTxn(id, p, 'txd-producers', 0, 0, 2, ts));
      assert.equal(errorName(outside.kafka!.responses[0]!.partitionResponses[0]!.errorCode), errorName(ErrorCode.INVALID_TXN_STATE));
      await same('outside the transaction, v11', 'Produce', 11, produceTxn(id, p, 'txd-producers', 0, 0, 2, ts));
      await same('a transactional batch without the request\'s transactional id', 'Produce', 9, produceTxn(null, p, 'txd-producers', 1, 0, 1, ts, true));
      await same('add', 'AddPartitionsToTxn', 3, addPartitions(id, p, [['txd-producers', [0]]]), sortAddPartitions);
      await same('produce in the transaction', 'Produce', 9, produceTxn(id, p, 'txd-producers', 0, 0, 3, ts));
      await same('produce more', 'Produce', 9, produceTxn(id, p, 'txd-producers', 0, 3, 2, ts + 10));
      const idem = await init('idempotent producer', null);
      const ip: Producer = { kafka: { producerId: idem.kafka.producerId, producerEpoch: 0 }, brook: { producerId: idem.brook.producerId, producerEpoch: 0 } };
      await same('idempotent produce', 'Produce', 9, produceTxn(null, ip, 'txd-producers', 1, 0, 4, ts + 20));
      await describeProducers('an open transaction and an idempotent producer');
      await same('commit', 'EndTxn', 3, endTxn(id, p, true));
      await settled(id);
      await describeProducers('after the commit marker');
      await same('produce after the commit, not added again', 'Produce', 9, produceTxn(id, p, 'txd-producers', 0, 5, 1, ts + 30));
      await same('produce with another epoch', 'Produce', 9, (side) => produceTxn(id, { ...p, [side]: { ...p[side], producerEpoch: p[side].producerEpoch + 1 } }, 'txd-producers', 0, 0, 1, ts + 30)(side));
      await same('read committed', 'ListOffsets', 7, {
        replicaId: -1, isolationLevel: 1, topics: [{ name: 'txd-producers', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }],
      });
    });
  });
});
