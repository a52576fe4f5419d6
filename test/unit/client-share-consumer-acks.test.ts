/**
 * ShareConsumer details against Brook's broker: GAP acknowledgements for acquired offsets
 * without a record (a transaction's commit marker), a record that cannot be deserialized
 * is released, RENEW keeps a record's acquisition lock past its duration, and heartbeats
 * run on the injected clock at the interval the coordinator gives.
 */
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { test, type TestContext } from 'node:test';
import { CLIENT_CHANNELS, Producer, ShareConsumer, type AcknowledgementCommit, type RequestMessage } from '../../src/index.js';
import type { BrokerOptions } from '../../src/broker/broker.js';
import { ManualScheduler } from '../../src/util/clock.js';
import { startBrook } from '../support/brook.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { valueOfShare, warmUp } from '../support/share-helpers.js';

const T = { timeout: 60_000 };

async function setup(t: TestContext, options: BrokerOptions = {}): Promise<{ bootstrap: string; consumers: ShareConsumer<unknown, unknown, unknown>[] }> {
  const broker = await startBrook({ groupShareMinHeartbeatIntervalMs: 500, groupShareHeartbeatIntervalMs: 500, ...options });
  const consumers: ShareConsumer<unknown, unknown, unknown>[] = [];
  t.after(async () => {
    await Promise.all(consumers.map((c) => c.close({ timeoutMs: 5_000 })));
    await broker.stop();
  });
  return { bootstrap: broker.bootstrap, consumers };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('an acquired offset without a record (a transaction marker) is acknowledged as GAP by the client', T, async (t) => {
  const { bootstrap, consumers } = await setup(t);
  await createTopic(bootstrap, 'sc-gap', 1);
  const commits: AcknowledgementCommit[] = [];
  const consumer = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-gap', onAcknowledgementCommit: (c) => commits.push(c) });
  consumers.push(consumer);
  consumer.subscribe(['sc-gap']);
  await warmUp(bootstrap, 'sc-gap', 1, [consumer]);

  const producer = new Producer({ bootstrapServers: bootstrap, transactionalId: 'gap-tx' });
  t.after(() => producer.close());
  await producer.initTransactions();
  producer.beginTransaction();
  await Promise.all(['t1', 't2'].map((value) => producer.send({ topic: 'sc-gap', partition: 0, value })));
  await producer.commitTransaction();
  await produce(bootstrap, 'sc-gap', 0, ['after']);

  const values: string[] = [];
  const offsets: bigint[] = [];
  const deadline = Date.now() + 20_000;
  while (!values.includes('after')) {
    if (Date.now() > deadline) throw new Error(`got ${values.join(',')}`);
    for (const r of await consumer.poll({ timeoutMs: 500 })) {
      values.push(valueOfShare(r));
      offsets.push(r.offset);
    }
  }
  await consumer.commitSync({ timeoutMs: 10_000 });
  assert.deepEqual(values, ['t1', 't2', 'after']);
  // The commit marker sits between t2 and 'after': acknowledged though never given out.
  const marker = offsets[1]! + 1n;
  assert.equal(offsets[2], marker + 1n);
  const acknowledged = commits.filter((c) => c.error === null).flatMap((c) => c.offsets);
  assert.ok(acknowledged.includes(marker), `the marker's offset ${marker} was acknowledged: ${acknowledged.join(',')}`);
  assert.ok(commits.every((c) => c.error === null));
});

test('a record that cannot be deserialized is released and comes back; poll() throws RecordDeserializationError', T, async (t) => {
  const { bootstrap, consumers } = await setup(t);
  await createTopic(bootstrap, 'sc-deser', 1);
  const consumer = await ShareConsumer.connect({
    bootstrapServers: bootstrap, groupId: 'g-deser',
    deserializers: { value: (b: Buffer) => { const s = b.toString(); if (s === 'bad') throw new Error('bad value'); return s; } },
  });
  consumers.push(consumer);
  consumer.subscribe(['sc-deser']);
  await warmUp(bootstrap, 'sc-deser', 1, [consumer]);
  await produce(bootstrap, 'sc-deser', 0, ['ok1', 'bad', 'ok2']);
  const good: string[] = [];
  const failures: { offset: bigint; code: string }[] = [];
  const deadline = Date.now() + 20_000;
  while (failures.length < 2 || !good.includes('ok2')) {
    if (Date.now() > deadline) throw new Error(`good ${good.join(',')}, ${failures.length} failures`);
    try {
      for (const r of await consumer.poll({ timeoutMs: 300 })) good.push(r.value!);
    } catch (err) {
      failures.push({ offset: (err as { offset: bigint }).offset, code: (err as { code: string }).code });
      assert.match((err as Error).message, /the record was released/);
    }
  }
  assert.equal(failures[0]!.code, 'ERR_RECORD_DESERIALIZATION');
  assert.equal(failures[1]!.offset, failures[0]!.offset, 'the released record came back');
  assert.deepEqual(good.filter((v) => v === 'ok1' || v === 'ok2'), ['ok1', 'ok2']);
});

test('RENEW keeps the acquisition lock past its duration: the final ACCEPT still applies', T, async (t) => {
  const { bootstrap, consumers } = await setup(t, { groupShareMinRecordLockDurationMs: 1_000, groupShareRecordLockDurationMs: 1_500 });
  await createTopic(bootstrap, 'sc-renew', 1);
  const consumer = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-renew', acknowledgementMode: 'explicit' });
  consumers.push(consumer);
  consumer.subscribe(['sc-renew']);
  await warmUp(bootstrap, 'sc-renew', 1, [consumer]);
  assert.equal(consumer.acquisitionLockTimeoutMs(), 1_500);
  await produce(bootstrap, 'sc-renew', 0, ['slow']);
  let records = await consumer.poll({ timeoutMs: 5_000 });
  while (records.length === 0) records = await consumer.poll({ timeoutMs: 5_000 });
  const record = records[0]!;
  for (let i = 0; i < 3; i++) {
    await sleep(900);
    consumer.acknowledge(record, 'RENEW');
    const renewed = await consumer.commitSync({ timeoutMs: 5_000 });
    assert.deepEqual(renewed.map((r) => r.error), [null]);
  }
  // Renewed, not finished: an explicit poll still refuses to go on.
  await assert.rejects(consumer.poll({ timeoutMs: 0 }), { code: 'ERR_ILLEGAL_STATE' });
  consumer.acknowledge(record, 'ACCEPT');
  const accepted = await consumer.commitSync({ timeoutMs: 5_000 });
  assert.deepEqual(accepted.map((r) => r.error), [null], 'accepted 2.7 s after the delivery, with a 1.5 s lock');
  assert.deepEqual(await consumer.poll({ timeoutMs: 2_000 }), [], 'not delivered again');
});

test('heartbeats run on the injected clock, every interval the coordinator gives', T, async (t) => {
  const { bootstrap, consumers } = await setup(t);
  await createTopic(bootstrap, 'sc-clock', 1);
  const scheduler = new ManualScheduler(1_000_000);
  const consumer = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-clock', clientId: 'clocked', scheduler });
  consumers.push(consumer);
  const heartbeats: number[] = [];
  const onRequest = (m: unknown): void => {
    const r = m as RequestMessage;
    if (r.clientId === 'clocked' && r.api === 'ShareGroupHeartbeat') heartbeats.push(r.errorCode ?? -1);
  };
  subscribe(CLIENT_CHANNELS.request, onRequest);
  t.after(() => unsubscribe(CLIENT_CHANNELS.request, onRequest));
  const until = async (n: number): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (heartbeats.length < n) {
      if (Date.now() > deadline) throw new Error(`${heartbeats.length} heartbeats, waiting for ${n}`);
      await sleep(20);
    }
  };
  consumer.subscribe(['sc-clock']);
  await scheduler.advance(0);
  await until(1);
  await sleep(700);
  assert.equal(heartbeats.length, 1, 'no heartbeat before the interval passed on the injected clock');
  await scheduler.advance(499);
  await sleep(200);
  assert.equal(heartbeats.length, 1);
  await scheduler.advance(1);
  await until(2);
  assert.deepEqual(heartbeats, [0, 0]);
});

test('poll() ends by its AbortSignal; aborting the options\' signal closes the consumer', T, async (t) => {
  const { bootstrap, consumers } = await setup(t);
  await createTopic(bootstrap, 'sc-abort', 1);
  const closer = new AbortController();
  const consumer = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-abort', signal: closer.signal });
  consumers.push(consumer);
  consumer.subscribe(['sc-abort']);
  const started = Date.now();
  await assert.rejects(consumer.poll({ timeoutMs: 60_000, signal: AbortSignal.timeout(200) }), { code: 'ERR_ABORTED' });
  assert.ok(Date.now() - started < 5_000);
  const polling = consumer.poll({ timeoutMs: 60_000 });
  closer.abort();
  await assert.rejects(polling, { code: 'ERR_ABORTED' });
  assert.throws(() => consumer.subscribe(['sc-abort']), { code: 'ERR_ILLEGAL_STATE' });
});
