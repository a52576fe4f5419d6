/**
 * The transaction, legacy config and client quota requests of the authorization differential
 * (test/interop/acls-differential.test.ts), sent as the restricted principal; the names are
 * those of acl-requests.ts.
 *
 * The transaction is a real one on both brokers, in the transaction-version-1 forms both
 * serve (Produce v11, TxnOffsetCommit v4, EndTxn v4: their next versions are version 2's):
 * InitProducerId, AddPartitionsToTxn, a transactional Produce, AddOffsetsToTxn,
 * TxnOffsetCommit, DescribeTransactions and ListTransactions while it is Ongoing, EndTxn.
 * Where the principal is refused a step the transaction needs, the super user takes that step
 * instead (the same on both brokers), so each later request meets a live transaction and only
 * its own authorization decides. The super user also adds partitions of topics the principal
 * may not see (B, D) and starts a second transactional id outside the configuration's prefix,
 * for DescribeTransactions' and ListTransactions' filtering.
 */
import type { KafkaConnection } from '../../../src/client/connection.js';
import { Api } from '../../../src/protocol/messages/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRecordBatch } from '../../../src/protocol/records/index.js';
import { QUOTAS_NOT_SUPPORTED } from '../../../src/broker/handlers/alter-client-quotas.js';
import { byFirst, names, send, type AclSide, type Step, type VersionOf } from './acl-requests.js';

/** The transaction-version-1 forms: a later version of these is a transaction-version-2 request. */
const TV1 = { produce: 11, txnOffsetCommit: 4, endTxn: 4 } as const;

/** Answers that only mean "not yet": a coordinator loading, or the previous transaction's markers still going out. */
const NOT_YET = new Set<number>([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.CONCURRENT_TRANSACTIONS]);

interface Producer { producerId: bigint; producerEpoch: number }

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** InitProducerId, again while the answer only means "not yet" (FindCoordinator first: Kafka creates `__transaction_state` there). */
async function initProducerId(conn: KafkaConnection, v: VersionOf, transactionalId: string): Promise<{ errorCode: number } & Producer> {
  for (let i = 0; ; i++) {
    await send(conn, Api.FindCoordinator, v, { keyType: 1, coordinatorKeys: [transactionalId] });
    const r = await send(conn, Api.InitProducerId, v, { transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
    if (!NOT_YET.has(r.errorCode) || i >= 150) return r;
    await sleep(100);
  }
}

/** Until the transaction's markers are out (its state no longer Prepare*), as the super user sees it. */
async function settled(side: AclSide, v: VersionOf, transactionalId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await send(side.admin, Api.DescribeTransactions, v, { transactionalIds: [transactionalId] });
    if (!r.transactionStates[0]!.transactionState.startsWith('Prepare')) return;
    await sleep(25);
  }
  throw new Error(`${side.name}: ${transactionalId} stays in Prepare*`);
}

function addPartitions(conn: KafkaConnection, v: VersionOf, transactionalId: string, p: Producer, topics: [string, number[]][]) {
  return send(conn, Api.AddPartitionsToTxn, v, {
    v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: p.producerId, v3AndBelowProducerEpoch: p.producerEpoch,
    v3AndBelowTopics: topics.map(([name, partitions]) => ({ name, partitions })),
  }).then((r) => r.resultsByTopicV3AndBelow!.flatMap((t) => t.resultsByPartition.map((x) => [t.name, x.partitionIndex, x.partitionErrorCode])).sort(byFirst));
}

const ok = (codes: unknown[][]): boolean => codes.every((c) => c[c.length - 1] === ErrorCode.NONE);

/** The transaction, step by step as the principal, the super user standing in where it was refused. */
async function transaction(s: AclSide, p: string, v: VersionOf): Promise<Record<string, unknown>> {
  const n = names(p);
  const out: Record<string, unknown> = {};
  const init = await initProducerId(s.alice, v, n.TX);
  out['InitProducerId'] = init.errorCode;
  let producer: Producer = init;
  if (init.errorCode !== ErrorCode.NONE) {
    const byAdmin = await initProducerId(s.admin, v, n.TX);
    if (byAdmin.errorCode !== ErrorCode.NONE) throw new Error(`${s.name}: the super user's InitProducerId ${n.TX}: ${byAdmin.errorCode}`);
    producer = byAdmin;
  }
  const other = await initProducerId(s.admin, v, n.TXX);
  if (other.errorCode !== ErrorCode.NONE) throw new Error(`${s.name}: the super user's InitProducerId ${n.TXX}: ${other.errorCode}`);

  // An unknown topic (refused or unknown) fails the request whole: nothing is added.
  out['AddPartitionsToTxn all'] = await addPartitions(s.alice, v, n.TX, producer, [[n.A, [0]], [n.B, [0]], [n.C, [0]], [n.D, [0]], [n.none, [0]], ['__consumer_offsets', [0]]]);
  const addA = await addPartitions(s.alice, v, n.TX, producer, [[n.A, [0]]]);
  out['AddPartitionsToTxn A'] = addA;
  const byAdmin = await addPartitions(s.admin, v, n.TX, producer, ok(addA) ? [[n.B, [0]], [n.D, [0]]] : [[n.A, [0]], [n.B, [0]], [n.D, [0]]]);
  if (!ok(byAdmin)) throw new Error(`${s.name}: the super user's AddPartitionsToTxn: ${JSON.stringify(byAdmin)}`);

  const records = encodeRecordBatch({
    records: [{ key: null, value: Buffer.from('txn'), headers: [], timestamp: 1_700_000_000_000 }],
    producerId: producer.producerId, producerEpoch: producer.producerEpoch, baseSequence: 0, isTransactional: true,
  });
  const produced = await s.alice.request(Api.Produce, {
    transactionalId: n.TX, acks: -1, timeoutMs: 10_000, topicData: [{ name: n.A, partitionData: [{ index: 0, records }] }],
  }, { version: TV1.produce });
  out['Produce'] = produced!.responses.flatMap((t) => t.partitionResponses.map((x) => [t.name, x.errorCode]));

  const addOffsets = (conn: KafkaConnection, groupId: string) => send(conn, Api.AddOffsetsToTxn, v, { transactionalId: n.TX, ...producer, groupId }).then((r) => r.errorCode);
  out['AddOffsetsToTxn'] = [[n.GA, await addOffsets(s.alice, n.GA)], [n.GX, await addOffsets(s.alice, n.GX)]];
  if ((out['AddOffsetsToTxn'] as unknown[][])[0]![1] !== ErrorCode.NONE) {
    const code = await addOffsets(s.admin, n.GA);
    if (code !== ErrorCode.NONE) throw new Error(`${s.name}: the super user's AddOffsetsToTxn: ${code}`);
  }
  const commit = async (groupId: string): Promise<unknown> => {
    const r = await s.alice.request(Api.TxnOffsetCommit, {
      transactionalId: n.TX, groupId, ...producer, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null,
      topics: [[n.A, [0, 5]], [n.B, [0]], [n.C, [0]], [n.none, [0]]].map(([name, partitions]) => ({
        name: name as string, partitions: (partitions as number[]).map((partitionIndex) => ({ partitionIndex, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' })),
      })),
    }, { version: TV1.txnOffsetCommit });
    return r.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.partitionIndex, x.errorCode])).sort(byFirst);
  };
  out['TxnOffsetCommit'] = { [n.GA]: await commit(n.GA), [n.GX]: await commit(n.GX) };

  const described = await send(s.alice, Api.DescribeTransactions, v, { transactionalIds: [n.TX, n.TXX, `${n.TX}-none`] });
  out['DescribeTransactions'] = described.transactionStates.map((t) => [
    t.transactionalId, t.errorCode, t.transactionState, t.topics.map((x) => [x.topic, [...x.partitions].sort((a, b) => a - b)]).sort(byFirst),
  ]);
  const listed = await send(s.alice, Api.ListTransactions, v, { stateFilters: [], producerIdFilters: [], durationFilter: -1n });
  // Every configuration's transactions are on the broker: only this one's are compared.
  out['ListTransactions'] = [listed.errorCode, listed.transactionStates.filter((t) => [n.TX, n.TXX].includes(t.transactionalId)).map((t) => [t.transactionalId, t.transactionState]).sort(byFirst)];

  const end = (conn: KafkaConnection) => conn.request(Api.EndTxn, { transactionalId: n.TX, ...producer, committed: true }, { version: TV1.endTxn }).then((r) => r.errorCode);
  out['EndTxn'] = await end(s.alice);
  if (out['EndTxn'] !== ErrorCode.NONE) {
    const code = await end(s.admin);
    if (code !== ErrorCode.NONE) throw new Error(`${s.name}: the super user's EndTxn: ${code}`);
  }
  // The later steps delete topics and groups of this transaction: its markers go out first.
  await settled(s, v, n.TX);
  return out;
}

export function transactionSteps(): Step[] {
  return [
    { name: 'transaction', run: transaction },
    { name: 'WriteTxnMarkers', async run(s, p, v) {
      const n = names(p);
      // Partitions that do not exist: once authorized, UNKNOWN_TOPIC_OR_PARTITION, and no log changes.
      const r = await send(s.alice, Api.WriteTxnMarkers, v, {
        markers: [{ producerId: 1000n, producerEpoch: 0, transactionResult: false, coordinatorEpoch: 0, topics: [{ name: n.A, partitionIndexes: [5] }, { name: n.none, partitionIndexes: [0] }] }],
      });
      return r.markers.flatMap((m) => m.topics.flatMap((t) => t.partitions.map((x) => [t.name, x.partitionIndex, x.errorCode]))).sort(byFirst);
    } },
    { name: 'AlterConfigs (validate only)', async run(s, p, v) {
      const n = names(p);
      const r = await send(s.alice, Api.AlterConfigs, v, {
        resources: [
          ...[n.A, n.B, n.D].map((resourceName) => ({ resourceType: 2, resourceName, configs: [{ name: 'retention.ms', value: '86400000' }] })),
          { resourceType: 4, resourceName: '1', configs: [{ name: 'log.retention.ms', value: '86400000' }] },
          // Another node's id: authorization comes before it is looked at.
          { resourceType: 4, resourceName: '7', configs: [{ name: 'log.retention.ms', value: '86400000' }] },
        ],
        validateOnly: true,
      });
      return r.responses.map((x) => [x.resourceType, x.resourceName, x.errorCode]);
    } },
    { name: 'DescribeClientQuotas', async run(s, _p, v) {
      const r = await send(s.alice, Api.DescribeClientQuotas, v, { components: [], strict: false });
      return [r.errorCode, r.entries?.length ?? null];
    } },
    { name: 'AlterClientQuotas (validate only)', async run(s, _p, v) {
      const r = await send(s.alice, Api.AlterClientQuotas, v, {
        entries: [{ entity: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: true,
      });
      // Brook stores no quotas (docs/ARCHITECTURE.md): past authorization it refuses what Kafka accepts.
      const past = (code: number, message: string | null): number | string =>
        (s.name === 'kafka' ? code === ErrorCode.NONE : code === ErrorCode.INVALID_REQUEST && message === QUOTAS_NOT_SUPPORTED) ? 'past authorization' : code;
      return r.entries.map((e) => past(e.errorCode, e.errorMessage));
    } },
  ];
}
