/**
 * The broker when its disk misbehaves while it runs, through the storage's injectable file
 * system: for each fault, the error a client gets (KafkaJS, a third-party client, and
 * Brook's own), the broker's log line, nothing acknowledged lost, and the broker serving
 * again without a restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Admin, Consumer, Producer } from '../../src/index.js';
import { startFaultyBrook } from '../support/brook.js';
import { kafkaJs } from '../support/clients/kafkajs.js';

const TIMEOUT = { timeout: 60_000 };

/** Every value of a topic's partition, read with Brook's consumer (no group). */
async function readAllValues(bootstrap: string, topic: string, partition: number): Promise<string[]> {
  const consumer = new Consumer({ bootstrapServers: bootstrap, autoOffsetReset: 'earliest' });
  try {
    consumer.assign([{ topic, partition }]);
    const admin = await Admin.connect({ bootstrapServers: bootstrap });
    const end = (await admin.logEndOffsets([{ topic, partition }])).get(`${topic}:${partition}`) ?? 0n;
    admin.close();
    const values: string[] = [];
    for (let polls = 0; values.length < Number(end) && polls < 200; polls++) {
      for (const r of await consumer.poll({ timeoutMs: 100 })) values.push(r.value!.toString());
    }
    return values;
  } finally {
    await consumer.close();
  }
}

test('disk full: KafkaJS gets KAFKA_STORAGE_ERROR at once, the broker logs the directory and errno, other partitions, reads and group heartbeats go on, a commit that cannot be written gets an error, and writes resume once there is space', TIMEOUT, async () => {
  const f = await startFaultyBrook();
  const kafka = kafkaJs(f.broker.bootstrap, 'faults', 0);
  const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  try {
    const admin = await Admin.connect({ bootstrapServers: f.broker.bootstrap });
    await admin.createTopic({ name: 'orders', partitions: 2 });
    admin.close();
    await producer.connect();
    await producer.send({ topic: 'orders', acks: -1, messages: [{ partition: 0, value: 'acked-0' }, { partition: 1, value: 'acked-1' }] });
    // A group member, to see heartbeats go on while the disk is full.
    const member = new Consumer({ bootstrapServers: f.broker.bootstrap, groupId: 'g', autoOffsetReset: 'earliest', heartbeatIntervalMs: 100, sessionTimeoutMs: 6_000, enableAutoCommit: false });
    member.subscribe(['orders']);
    for (let i = 0; i < 100 && member.assignment().length < 2; i++) await member.poll({ timeoutMs: 100 });
    assert.equal(member.assignment().length, 2);

    const full = f.faults.inject({ op: 'write', path: 'orders-0', errno: 'ENOSPC' });
    const offsetsFull = f.faults.inject({ op: 'write', path: '__consumer_offsets-0', errno: 'ENOSPC' });
    const started = Date.now();
    await assert.rejects(
      producer.send({ topic: 'orders', acks: -1, messages: [{ partition: 0, value: 'refused' }] }),
      (err: Error & { type?: string }) => err.type === 'KAFKA_STORAGE_ERROR' || /KAFKA_STORAGE_ERROR|disk error/i.test(`${err.message} ${String((err as { cause?: unknown }).cause)}`),
    );
    assert.ok(Date.now() - started < 5_000, 'answered at once, not after a timeout');
    assert.ok(f.lines.some((l) => /level=error .*cannot write to .*orders-0: ENOSPC/.test(l)), f.lines.join(''));
    // The other partition takes writes; reads and heartbeats go on.
    await producer.send({ topic: 'orders', acks: -1, messages: [{ partition: 1, value: 'other partition' }] });
    assert.deepEqual(await readAllValues(f.broker.bootstrap, 'orders', 0), ['acked-0']);
    const connection = await KafkaConnection.connect({ host: '127.0.0.1', port: f.broker.port });
    try {
      const { memberId, generationId } = member.groupMetadata();
      const heartbeat = await connection.request(Api.Heartbeat, { groupId: 'g', generationId, memberId, groupInstanceId: null });
      assert.equal(heartbeat.errorCode, ErrorCode.NONE, 'heartbeats are answered');
      // An offset commit that cannot be written is an error reply, never a success.
      const answer = await connection.request(Api.OffsetCommit, {
        groupId: 'simple', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      });
      assert.equal(answer.topics[0]!.partitions[0]!.errorCode, ErrorCode.NOT_COORDINATOR, 'Kafka maps a storage error on the offsets topic to NOT_COORDINATOR');
    } finally {
      connection.close();
    }
    // Space is back: writes resume by themselves.
    full.remove();
    offsetsFull.remove();
    await producer.send({ topic: 'orders', acks: -1, messages: [{ partition: 0, value: 'after' }] });
    assert.deepEqual(await readAllValues(f.broker.bootstrap, 'orders', 0), ['acked-0', 'after']);
    await member.commitSync([{ topic: 'orders', partition: 0, offset: 2n }], { timeoutMs: 10_000 });
    await member.close();
  } finally {
    await producer.disconnect().catch(() => undefined);
    await f.stop();
  }
});

test('a failed fsync: the acks=all produce waiting on it gets KAFKA_STORAGE_ERROR, the broker logs the partition offline and recovered, and serves it again with every acknowledged record', TIMEOUT, async () => {
  const f = await startFaultyBrook();
  const producer = new Producer({ bootstrapServers: f.broker.bootstrap, retries: 0, idempotent: false, lingerMs: 0 });
  try {
    const admin = await Admin.connect({ bootstrapServers: f.broker.bootstrap });
    await admin.createTopic({ name: 'ledger', partitions: 1 });
    admin.close();
    const acked: string[] = [];
    for (let i = 0; i < 5; i++) {
      await producer.send({ topic: 'ledger', value: `before-${i}` });
      acked.push(`before-${i}`);
    }
    f.faults.inject({ op: 'fdatasync', path: 'ledger-0', errno: 'EIO', times: 1 });
    await assert.rejects(producer.send({ topic: 'ledger', value: 'not durable' }), { code: 'ERR_KAFKA', errorName: 'KAFKA_STORAGE_ERROR' });
    assert.ok(f.lines.some((l) => /partition ledger-0 is offline: fsync of .* failed/.test(l)), f.lines.join(''));
    // Without a restart: it recovers and takes writes again.
    for (let i = 0; ; i++) {
      try {
        await producer.send({ topic: 'ledger', value: 'after' });
        acked.push('after');
        break;
      } catch (err) {
        assert.ok(i < 100, `still refused: ${(err as Error).message}`);
        await sleep(50);
      }
    }
    assert.ok(f.lines.some((l) => /partition ledger-0 recovered and serving again/.test(l)));
    const values = await readAllValues(f.broker.bootstrap, 'ledger', 0);
    assert.deepEqual(values, acked, 'every acknowledged record, in order; the one never acknowledged is gone');
    assert.deepEqual(
      { errors: f.broker.storage.stats.fsyncErrors, offline: f.broker.storage.stats.partitionsTakenOffline, recovered: f.broker.storage.stats.partitionRecoveries },
      { errors: 1, offline: 1, recovered: 1 },
    );
  } finally {
    await producer.close(1_000).catch(() => undefined);
    await f.stop();
  }
});

test('InitProducerId while the producer id block cannot be persisted answers a retriable COORDINATOR_LOAD_IN_PROGRESS on an open connection, and succeeds once it can', TIMEOUT, async () => {
  const f = await startFaultyBrook();
  const connection = await KafkaConnection.connect({ host: '127.0.0.1', port: f.broker.port });
  try {
    const catalog = f.faults.inject({ op: 'write', path: 'catalog.json', errno: 'ENOSPC' });
    const init = { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 };
    const refused = await connection.request(Api.InitProducerId, init);
    assert.equal(refused.errorCode, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    assert.ok(catalog.hits > 0);
    catalog.remove();
    const granted = await connection.request(Api.InitProducerId, init);
    assert.equal(granted.errorCode, ErrorCode.NONE);
    assert.ok(granted.producerId >= 0n);
  } finally {
    connection.close();
    await f.stop();
  }
});

test('a slow fsync (seconds) holds only the acks=all answers waiting on it: metadata, fetches and group requests are served meanwhile, and the produce completes once the disk answers', TIMEOUT, async () => {
  const f = await startFaultyBrook();
  const producer = new Producer({ bootstrapServers: f.broker.bootstrap, lingerMs: 0 });
  const connection = await KafkaConnection.connect({ host: '127.0.0.1', port: f.broker.port });
  try {
    const admin = await Admin.connect({ bootstrapServers: f.broker.bootstrap });
    await admin.createTopic({ name: 'slow', partitions: 1 });
    await producer.send({ topic: 'slow', value: 'first' });
    const slow = f.faults.inject({ op: 'fdatasync', path: 'slow-0', hold: true });
    let acknowledged = false;
    const pending = producer.send({ topic: 'slow', value: 'second' }).then(() => { acknowledged = true; });
    pending.catch(() => undefined); // asserted below; a failed assertion must not leave it unhandled
    for (let i = 0; i < 100 && slow.hits === 0; i++) await sleep(10);
    assert.equal(slow.hits, 1, 'the fsync is in progress');
    // Meanwhile the broker answers everything else.
    assert.deepEqual(await admin.listTopics({ timeoutMs: 2_000 }), ['slow']);
    const group = await connection.request(Api.FindCoordinator, { keyType: 0, coordinatorKeys: ['g'] });
    assert.equal(group.coordinators?.[0]?.errorCode, ErrorCode.NONE);
    assert.deepEqual(await readAllValues(f.broker.bootstrap, 'slow', 0), ['first', 'second'], 'a reader sees the record before it is durable, as Kafka\'s high watermark does on one replica');
    await sleep(200);
    assert.equal(acknowledged, false, 'not acknowledged while its fsync runs');
    slow.remove(); // the disk answers
    await pending;
    admin.close();
  } finally {
    connection.close();
    await producer.close(1_000).catch(() => undefined);
    await f.stop();
  }
});
