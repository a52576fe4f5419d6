/**
 * Differential conformance of KIP-932 record delivery: scripted raw ShareGroupHeartbeat,
 * ShareFetch and ShareAcknowledge sequences go to a real Apache Kafka 4.4 broker and to
 * Brook, and every answer is compared field by field (test/support/differential/normalize.ts:
 * node ids, endpoints, error message texts), plus each error message verbatim.
 *
 * As in share-groups-differential.test.ts, each topic is created on Kafka and then on Brook
 * with Kafka's id, and the same record batches (fixed timestamps, no producer id) are
 * produced to both, so records and offsets are equal byte for byte. A member joins and
 * heartbeats until its partitions' share state is initialized (Kafka does that
 * asynchronously) before the records the script reads are produced: a share group starts
 * at the log end.
 *
 * Both brokers run with the smallest lock duration Kafka takes (1 s, the floor of
 * group.share.min.record.lock.duration.ms) and delivery count limit (2), so that a lock
 * timeout and archiving at the limit can be scripted.
 *
 * Normalised beyond normalize.ts: topics and partitions of an answer are sorted by id and
 * index (Kafka answers from hash maps; clients match by id and index).
 */
import { appendFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both, type Side } from '../support/differential/pair.js';
import { testBatch } from '../support/differential/records.js';
import type { RequestBody } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ShareFetchResponseData } from '../../src/protocol/messages/share-fetch.js';
import type { ShareAcknowledgeResponseData } from '../../src/protocol/messages/share-acknowledge.js';

const SIDES: readonly Side[] = ['kafka', 'brook'];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const GAP = 0;
const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;
const RENEW = 4;
/** Member ids as KafkaShareConsumer makes them: 22 characters. */
const A = 'AAAAAAAAAAAAAAAAAAAAAA';
const B = 'BBBBBBBBBBBBBBBBBBBBBB';
const UNKNOWN_TOPIC = 'AAAAAAAAAAAAAAAAAAAAAQ';

type Fetch = RequestBody<'ShareFetch'>;
type Ack = RequestBody<'ShareAcknowledge'>;
interface AckBatch { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }

const byKey = <T>(key: (t: T) => string | number) => (a: T, b: T): number => {
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Topics by id, partitions by index; nodeEndpoints by node id. */
function sortShare<T extends ShareFetchResponseData | ShareAcknowledgeResponseData>(r: T): T {
  return {
    ...r,
    responses: (r.responses as { topicId: string; partitions: { partitionIndex: number }[] }[])
      .map((t) => ({ ...t, partitions: [...t.partitions].sort(byKey((p) => p.partitionIndex)) })).sort(byKey((t) => t.topicId)),
    nodeEndpoints: [...r.nodeEndpoints].sort(byKey((n) => n.nodeId)),
  } as T;
}

const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : Buffer.isBuffer(x) ? `<${x.length} bytes>` : x));

describe('share fetch (KIP-932): Brook delivers records as Apache Kafka', { timeout: 240_000 }, () => {
  let pair: DiffPair;
  const topicIds = new Map<string, string>();
  /** Every difference found, reported together at the end of each test. */
  let diffs: string[] = [];

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start(
      {
        'group.share.heartbeat.interval.ms': '1000',
        'group.share.min.heartbeat.interval.ms': '1000',
        'group.share.session.timeout.ms': '45000',
        'group.share.assignment.interval.ms': '0',
        'group.share.assignor.offload.enable': 'false',
        'group.share.record.lock.duration.ms': '2000',
        'group.share.min.record.lock.duration.ms': '1000',
        'group.share.delivery.count.limit': '2',
        'group.share.min.delivery.count.limit': '2',
        'auto.create.topics.enable': 'false',
        'group.initial.rebalance.delay.ms': '0',
      },
      {
        groupShareHeartbeatIntervalMs: 1000,
        groupShareMinHeartbeatIntervalMs: 1000,
        groupShareSessionTimeoutMs: 45000,
        groupShareAssignmentIntervalMs: 0,
        groupShareRecordLockDurationMs: 2000,
        groupShareMinRecordLockDurationMs: 1000,
        groupShareDeliveryCountLimit: 2,
        groupShareMinDeliveryCountLimit: 2,
        autoCreateTopics: false,
        groupInitialRebalanceDelayMs: 0,
      },
    );
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

  async function createTopic(name: string, partitions: number): Promise<string> {
    const res = await pair.conn.kafka.request('CreateTopics', 7, {
      topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
    });
    const t = res.topics[0]!;
    assert.equal(t.errorCode, 0, `kafka: creating ${name}: ${t.errorMessage}`);
    topicIds.set(name, t.topicId!);
    await pair.waitForKafkaTopic(name, partitions);
    pair.brookBroker.createTopic(name, partitions, { topicId: t.topicId });
    for (const side of SIDES) pair.normaliser[side].registerTopic(name, t.topicId!);
    return t.topicId!;
  }

  /** The same batch to both, acks=-1; `first` numbers its records. */
  async function produce(topic: string, partition: number, count: number, first: number): Promise<void> {
    const raw = await pair.both('Produce', 9, {
      transactionalId: null, acks: -1, timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: partition, records: testBatch(count, { first }) }] }],
    });
    for (const side of SIDES) assert.equal(raw[side]!.responses[0]!.partitionResponses[0]!.errorCode, 0, `produce (${side})`);
  }

  /** Joins `memberId` and heartbeats each side until its share state is initialized for `partitions` partitions. */
  async function join(group: string, memberId: string, topic: string, partitions: number): Promise<void> {
    for (const side of SIDES) {
      let epoch = 0;
      for (let i = 0; ; i++) {
        const r = await pair.conn[side].request('ShareGroupHeartbeat', 1, { groupId: group, memberId, memberEpoch: epoch, rackId: null, subscribedTopicNames: epoch === 0 ? [topic] : null });
        assert.equal(r.errorCode, 0, `${side}: ${r.errorMessage}`);
        epoch = r.memberEpoch;
        const held = r.assignment?.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) ?? 0;
        if (held === partitions && i > 0) break;
        if (i > 100) throw new Error(`${side}: ${memberId} never got ${partitions} partitions`);
        await sleep(100);
      }
    }
  }

  function record(what: string, raw: Both<unknown>): void {
    const { kafka, brook, diffs: d } = pair.normalize(raw as Both<ShareFetchResponseData>);
    if (process.env['SHARE_DIFF_TRACE'] !== undefined) appendFileSync(process.env['SHARE_DIFF_TRACE'], `${what}\n  ${json(kafka)}\n`);
    if (d.length > 0) diffs.push(`${what}:\n  ${d.join('\n  ')}\n  kafka: ${json(kafka)}\n  brook: ${json(brook)}`);
  }

  async function fetch(what: string, body: Fetch, version = 1): Promise<Both<ShareFetchResponseData>> {
    const raw = await pair.both('ShareFetch', version, body);
    const sorted = { kafka: sortShare(raw.kafka), brook: sortShare(raw.brook) };
    record(what, sorted);
    messages(what, sorted);
    return sorted;
  }

  async function acknowledge(what: string, body: Ack, version = 1): Promise<Both<ShareAcknowledgeResponseData>> {
    const raw = await pair.both('ShareAcknowledge', version, body);
    const sorted = { kafka: sortShare(raw.kafka), brook: sortShare(raw.brook) };
    record(what, sorted);
    messages(what, sorted);
    return sorted;
  }

  /** Error messages verbatim (normalize.ts only compares null against text). */
  function messages(what: string, r: Both<ShareFetchResponseData | ShareAcknowledgeResponseData>): void {
    const texts = (x: ShareFetchResponseData | ShareAcknowledgeResponseData): string[] => [x.errorMessage ?? '',
      ...(x.responses as { partitions: { errorMessage: string | null; acknowledgeErrorMessage?: string | null }[] }[]).flatMap((t) => t.partitions.flatMap((p) => [p.errorMessage ?? '', p.acknowledgeErrorMessage ?? '']))];
    const [k, b] = [texts(r.kafka), texts(r.brook)];
    if (json(k) !== json(b)) diffs.push(`${what}: messages\n  kafka: ${json(k)}\n  brook: ${json(b)}`);
  }

  function req(group: string, memberId: string, epoch: number, topicId: string, partitions: { partitionIndex: number; acknowledgementBatches: AckBatch[] }[], more: Partial<Fetch> = {}): Fetch {
    return {
      groupId: group, memberId, shareSessionEpoch: epoch, maxWaitMs: 300, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
      topics: partitions.length === 0 ? [] : [{ topicId, partitions }], forgottenTopicsData: [], ...more,
    };
  }

  function ackReq(group: string, memberId: string, epoch: number, topicId: string, partitions: { partitionIndex: number; acknowledgementBatches: AckBatch[] }[], more: Partial<Ack> = {}): Ack {
    return { groupId: group, memberId, shareSessionEpoch: epoch, topics: [{ topicId, partitions }], ...more };
  }

  const batch = (first: number, last: number, ...types: number[]): AckBatch => ({ firstOffset: BigInt(first), lastOffset: BigInt(last), acknowledgeTypes: types });
  const p = (partitionIndex: number, ...acknowledgementBatches: AckBatch[]) => ({ partitionIndex, acknowledgementBatches });

  /** A member's next session epoch: 0 opens, then 1, 2, ... (a refused request does not move it). */
  function epochs(): { next(): number; current(): number } {
    let e = 0;
    return { next: () => e++, current: () => e };
  }

  it('sessions, acknowledgements, errors and incremental answers', async () => {
    diffs = [];
    const G = 'sf-g1';
    const t = await createTopic('sf-t1', 2);
    await join(G, A, 'sf-t1', 2);
    const a = epochs();
    const b = epochs();

    await fetch('null group id', req(G, A, 0, t, [p(0)], { groupId: null }));
    await fetch('empty group id', req('', A, 0, t, [p(0)]));
    await fetch('a member id of 37 characters', req(G, 'm'.repeat(37), 0, t, [p(0)]));
    await fetch('epoch 1 without a session', req(G, A, 1, t, [p(0)]));
    await acknowledge('ShareAcknowledge epoch 0', ackReq(G, A, 0, t, [p(0, batch(0, 0, ACCEPT))]));
    await acknowledge('ShareAcknowledge without a session', ackReq(G, A, 1, t, [p(0, batch(0, 0, ACCEPT))]));
    await fetch('acknowledgements in an opening fetch', req(G, A, 0, t, [p(0, batch(0, 0, ACCEPT))]));

    // The session's first fetch loads the share-partition at the log end (nothing to deliver).
    await fetch('open the session', req(G, A, a.next(), t, [p(0)]));
    // Offsets 0-2, 3-6, 7-11.
    await produce('sf-t1', 0, 3, 0);
    await produce('sf-t1', 0, 4, 3);
    await produce('sf-t1', 0, 5, 7);
    await fetch('batch-optimized, MaxRecords 5: whole batches', req(G, A, a.next(), t, [], { maxRecords: 5, maxWaitMs: 3000 }));
    await fetch('a wrong epoch', req(G, A, a.current() + 5, t, []));
    // Piggybacked: accept 0-1, release 2, reject 3, gap 4, per-offset types 5-6.
    await fetch('acknowledgements piggybacked; released records acquired again', req(G, A, a.next(), t, [p(0, batch(0, 1, ACCEPT), batch(2, 2, RELEASE), batch(3, 3, REJECT), batch(4, 4, GAP), batch(5, 6, ACCEPT, RELEASE))], { maxRecords: 3, maxWaitMs: 3000 }));
    await acknowledge('records accepted already (before the start offset)', ackReq(G, A, a.next(), t, [p(0, batch(0, 1, ACCEPT))]));
    await acknowledge('records rejected already', ackReq(G, A, a.next(), t, [p(0, batch(3, 4, ACCEPT))]));
    await acknowledge('records beyond the end', ackReq(G, A, a.next(), t, [p(0, batch(40, 41, ACCEPT))]));
    await acknowledge('an invalid type', ackReq(G, A, a.next(), t, [p(0, batch(2, 2, 9))]));
    await acknowledge('a type count that does not match', ackReq(G, A, a.next(), t, [p(0, batch(2, 6, ACCEPT, RELEASE))]));
    await acknowledge('last offset before first', ackReq(G, A, a.next(), t, [p(0, batch(6, 2, ACCEPT))]));
    await acknowledge('overlapping batches', ackReq(G, A, a.next(), t, [p(0, batch(2, 3, ACCEPT), batch(2, 2, ACCEPT))]));
    await acknowledge('no types', ackReq(G, A, a.next(), t, [p(0, batch(2, 2))]));
    await acknowledge('RENEW without IsRenewAck (v1)', ackReq(G, A, a.next(), t, [p(0, batch(2, 2, RENEW))]));

    // B, in its own session, acknowledges what A holds.
    await fetch('B opens a session', req(G, B, b.next(), t, [p(0)], { maxWaitMs: 100 }));
    await acknowledge('B acknowledges records A holds', ackReq(G, B, b.next(), t, [p(0, batch(2, 2, ACCEPT))]));
    await acknowledge('B acknowledges records A holds and records it does not', ackReq(G, B, b.next(), t, [p(0, batch(6, 9, ACCEPT))]));

    await acknowledge('RENEW with IsRenewAck (v2)', ackReq(G, A, a.next(), t, [p(0, batch(2, 2, RENEW))], { isRenewAck: true }), 2);
    await fetch('a renewing ShareFetch that asks for records', req(G, A, a.current(), t, [p(0, batch(2, 2, RENEW))], { isRenewAck: true }), 2);
    await fetch('a renewing ShareFetch', req(G, A, a.next(), t, [p(0, batch(2, 2, RENEW))], { isRenewAck: true, maxBytes: 0, minBytes: 0, maxRecords: 0, maxWaitMs: 0 }), 2);
    await acknowledge('batches touching at one offset', ackReq(G, A, a.next(), t, [p(0, batch(8, 9, RELEASE), batch(9, 10, RELEASE))]));
    await acknowledge('A releases 7-8', ackReq(G, A, a.next(), t, [p(0, batch(7, 8, RELEASE))]));
    await acknowledge('A accepts available records', ackReq(G, A, a.next(), t, [p(0, batch(7, 8, ACCEPT))]));
    await acknowledge('A accepts held and available records', ackReq(G, A, a.next(), t, [p(0, batch(8, 11, ACCEPT))]));
    await acknowledge('empty group id', ackReq('', A, 1, t, [p(0, batch(7, 7, ACCEPT))]));
    await fetch('A takes the rest', req(G, A, a.next(), t, [], { maxWaitMs: 3000 }));
    await acknowledge('A accepts all it holds', ackReq(G, A, a.next(), t, [p(0, batch(2, 2, ACCEPT), batch(6, 6, ACCEPT), batch(7, 11, ACCEPT))]));

    // Partition 1 joins the session, listed although it has nothing; then records there.
    await fetch('partition 1 added', req(G, A, a.next(), t, [p(1)], { maxWaitMs: 100 }));
    await produce('sf-t1', 1, 2, 100);
    await fetch('records on partition 1', req(G, A, a.next(), t, [], { maxWaitMs: 3000 }));
    await fetch('nothing new: the incremental answer', req(G, A, a.next(), t, [], { maxWaitMs: 100 }));
    await fetch('an unknown partition', req(G, A, a.next(), t, [p(5)], { maxWaitMs: 100 }));
    await fetch('an unknown topic id', req(G, A, a.next(), UNKNOWN_TOPIC, [p(0)], { maxWaitMs: 100 }));
    await fetch('partition 1 forgotten', req(G, A, a.next(), t, [], { maxWaitMs: 100, forgottenTopicsData: [{ topicId: t, partitions: [1] }] }));
    await fetch('acknowledging a forgotten partition', req(G, A, a.next(), t, [p(1, batch(0, 1, ACCEPT))], { maxWaitMs: 100 }));
    await acknowledge('close with ShareAcknowledge -1', ackReq(G, A, -1, t, [p(1, batch(0, 1, ACCEPT))]));
    await acknowledge('after the close', ackReq(G, A, a.next(), t, [p(1, batch(0, 1, ACCEPT))]));
    await fetch('a fetch with epoch -1 and no session', req(G, A, -1, t, [p(0)]));
    await fetch('a new session gets what the closed one held', req(G, A, 0, t, [p(0), p(1)], { maxWaitMs: 3000 }));
    assert.deepEqual(diffs, [], diffs.join('\n'));
  });

  it('MaxRecords modes, BatchSize, lock timeout and the delivery count limit', async () => {
    diffs = [];
    const G = 'sf-g2';
    const t = await createTopic('sf-t2', 1);
    await join(G, A, 'sf-t2', 1);
    const a = epochs();
    await fetch('open the session', req(G, A, a.next(), t, [p(0)], { maxWaitMs: 100 }));
    // Offsets 0-3, 4-8, 9-14, 15-17.
    await produce('sf-t2', 0, 4, 0);
    await produce('sf-t2', 0, 5, 4);
    await produce('sf-t2', 0, 6, 9);
    await produce('sf-t2', 0, 3, 15);

    await fetch('record-limit mode, MaxRecords 2', req(G, A, a.next(), t, [], { maxRecords: 2, maxWaitMs: 3000, shareAcquireMode: 1 }), 2);
    await fetch('record-limit mode, MaxRecords 5, across a batch boundary', req(G, A, a.next(), t, [], { maxRecords: 5, maxWaitMs: 3000, shareAcquireMode: 1 }), 2);
    await fetch('batch-optimized, MaxRecords 1, BatchSize 2', req(G, A, a.next(), t, [], { maxRecords: 1, batchSize: 2, maxWaitMs: 3000 }), 2);
    await fetch('batch-optimized, BatchSize 2, the rest', req(G, A, a.next(), t, [], { maxRecords: 100, batchSize: 2, maxWaitMs: 3000 }), 2);
    // Release 0-1 (delivery count 1), then let every other lock run out.
    await acknowledge('release 0-1', ackReq(G, A, a.next(), t, [p(0, batch(0, 1, RELEASE))]));
    await sleep(3000);
    await fetch('after the locks ran out: everything again, delivery count 2, BatchSize 4', req(G, A, a.next(), t, [], { maxRecords: 100, batchSize: 4, maxWaitMs: 3000 }));
    await acknowledge('release 0-3 at the limit: archived', ackReq(G, A, a.next(), t, [p(0, batch(0, 3, RELEASE))]));
    await sleep(3000);
    await fetch('the rest timed out at the limit: archived, nothing to deliver', req(G, A, a.next(), t, [], { maxRecords: 100, maxWaitMs: 500 }));
    await produce('sf-t2', 0, 2, 18);
    await fetch('new records after the archived ones', req(G, A, a.next(), t, [], { maxRecords: 100, maxWaitMs: 3000 }));
    await fetch('close with ShareFetch -1, acknowledging', req(G, A, -1, t, [p(0, batch(18, 19, ACCEPT))], { maxWaitMs: 100 }));
    assert.deepEqual(diffs, [], diffs.join('\n'));
  });

  it('share-group lag: the records delivered after the start offset count (DeliveryCompleteCount)', async () => {
    diffs = [];
    const G = 'sf-g3';
    const t = await createTopic('sf-t3', 1);
    // A lock long enough that no acquisition runs out between the steps, whatever the pace:
    // every acknowledgement below must find its records still acquired.
    const lock = await pair.both('IncrementalAlterConfigs', 1, {
      resources: [{ resourceType: 32, resourceName: G, configs: [{ name: 'share.record.lock.duration.ms', configOperation: 0, value: '30000' }] }], validateOnly: false,
    });
    for (const side of SIDES) assert.equal(lock[side].responses[0]!.errorCode, ErrorCode.NONE, `${side}: ${lock[side].responses[0]!.errorMessage}`);
    await join(G, A, 'sf-t3', 1);
    const a = epochs();
    await fetch('open the session', req(G, A, a.next(), t, [p(0)], { maxWaitMs: 100 }));
    await produce('sf-t3', 0, 10, 0);
    await fetch('acquire 0-9', req(G, A, a.next(), t, [], { maxWaitMs: 3000 }));
    const describe = async (what: string): Promise<void> => {
      const raw = await pair.both('DescribeShareGroupOffsets', 1, { groups: [{ groupId: G, topics: [{ topicName: 'sf-t3', partitions: [0] }] }] });
      const lags = (side: Side): unknown => raw[side].groups.map((g) => g.topics.map((x) => x.partitions.map((q) => [q.partitionIndex, q.startOffset, q.lag, q.errorCode])));
      if (json(lags('kafka')) !== json(lags('brook'))) diffs.push(`${what}: start offset and lag\n  kafka: ${json(lags('kafka'))}\n  brook: ${json(lags('brook'))}`);
    };
    // Every acknowledgement here succeeds on Kafka (else the comparison says little).
    const accepted = (r: Both<ShareAcknowledgeResponseData>): void => {
      for (const side of SIDES) assert.deepEqual(r[side].responses.flatMap((x) => x.partitions.map((q) => q.errorCode)), [ErrorCode.NONE], side);
    };
    // Accepting 5-9 leaves the start offset at 0 and the lag at 10 - 0 - 5.
    accepted(await acknowledge('accept 5-9', ackReq(G, A, a.next(), t, [p(0, batch(5, 9, ACCEPT))])));
    await describe('5-9 accepted, 0-4 acquired');
    accepted(await acknowledge('reject 2', ackReq(G, A, a.next(), t, [p(0, batch(2, 2, REJECT))])));
    await describe('2 rejected too');
    // Written with the start offset from before the acknowledgement: 0, everything done.
    accepted(await acknowledge('accept 0-1 and 3-4', ackReq(G, A, a.next(), t, [p(0, batch(0, 1, ACCEPT), batch(3, 4, ACCEPT))])));
    await describe('everything done');
    assert.deepEqual(diffs, [], diffs.join('\n'));
  });
});
