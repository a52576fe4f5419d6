/**
 * A share group's dead-letter queue on a broker, over the wire: the group config names the
 * topic, a rejected record is answered once its ARCHIVING state is durable, lands in the DLQ
 * topic (created by the broker with errors.deadletterqueue.auto.create.topics.enable) and is
 * then ARCHIVED, so the start offset moves past it. The records' fields are compared with
 * Kafka's in test/interop/share-dlq-differential.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecords } from '../../src/protocol/records/batch-codec.js';
import { startBrook } from '../support/brook.js';
import { produce } from '../support/consumer-helpers.js';

const T = { timeout: 60_000 };
const MEMBER = 'AAAAAAAAAAAAAAAAAAAAAA';
const REJECT = 3;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('a rejected record is written to the group\'s DLQ topic, then ARCHIVED', T, async (t) => {
  const broker = await startBrook({ errorsDeadLetterQueueAutoCreateTopicsEnable: true, numPartitions: 2 });
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const created = await conn.request(Api.CreateTopics, { topics: [{ name: 'src', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, { version: 7 });
  const topicId = created.topics[0]!.topicId!;
  const alter = await conn.request(Api.IncrementalAlterConfigs, {
    resources: [{ resourceType: 32, resourceName: 'g', configs: [
      { name: 'errors.deadletterqueue.topic.name', configOperation: 0, value: 'dlq.g' },
      { name: 'errors.deadletterqueue.copy.record.enable', configOperation: 0, value: 'true' },
    ] }], validateOnly: false,
  });
  assert.equal(alter.responses[0]!.errorCode, ErrorCode.NONE);
  const init = await conn.request(Api.InitializeShareGroupState, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0n }] }] });
  assert.equal(init.results[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  await produce(broker.bootstrap, 'src', 0, ['a', 'b']);

  const fetched = await conn.request(Api.ShareFetch, {
    groupId: 'g', memberId: MEMBER, shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [],
  });
  assert.deepEqual(fetched.responses[0]!.partitions[0]!.acquiredRecords, [{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
  const ack = await conn.request(Api.ShareAcknowledge, {
    groupId: 'g', memberId: MEMBER, shareSessionEpoch: 1,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [REJECT] }] }] }],
  });
  assert.equal(ack.responses[0]!.partitions[0]!.errorCode, ErrorCode.NONE);

  // The DLQ write follows the acknowledgement's answer; source partition 0 of 2 DLQ partitions: 0.
  let records: ReturnType<typeof decodeRecords> = [];
  for (let i = 0; i < 50 && records.length < 2; i++) {
    const log = broker.storage.partition('dlq.g', 0);
    records = log === undefined ? [] : log.read(0n, 1 << 20, { minOneBatch: true }).records.flatMap((b) => decodeRecords(b));
    if (records.length < 2) await sleep(20);
  }
  assert.equal(broker.storage.topic('dlq.g')?.partitions, 2);
  assert.deepEqual(records.map((r) => [Number(r.offset), r.value?.toString(), r.headers.find((h) => h.key === '__dlq.errors.offset')?.value?.toString()]), [[0, 'a', '0'], [1, 'b', '1']]);

  // Then ARCHIVED: every record is done (lag 0).
  let lag: bigint | undefined;
  for (let i = 0; i < 50 && lag !== 0n; i++) {
    const d = await conn.request(Api.DescribeShareGroupOffsets, { groups: [{ groupId: 'g', topics: [{ topicName: 'src', partitions: [0] }] }] });
    lag = d.groups[0]!.topics[0]!.partitions[0]!.lag;
    if (lag !== 0n) await sleep(20);
  }
  assert.equal(lag, 0n);
  const shares = broker.context.shares.partitionsOf('g')[0]!.sharePartition;
  assert.equal(shares.startOffset, 2);
});
