/**
 * Brook's ShareConsumer against Brook's broker: polling with implicit and explicit
 * acknowledgement, commitSync results and the commit callback, RELEASE redelivery with
 * delivery count 2, REJECT, two members sharing a topic, and close() releasing what the
 * member acquired. (test/interop/share-consumer-kafka.test.ts runs it against Kafka 4.4.)
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { ShareConsumer, type AcknowledgementCommit, type ShareConsumerRecord } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { createTopic, produce } from '../support/consumer-helpers.js';
import { valueOfShare, warmUp } from '../support/share-helpers.js';

const T = { timeout: 120_000 };

/** A broker whose share group members heartbeat every 500 ms (assignments arrive sooner), and the consumers to close before it stops. */
async function setup(t: TestContext): Promise<{ bootstrap: string; consumers: ShareConsumer[] }> {
  const broker = await startBrook({ groupShareMinHeartbeatIntervalMs: 500, groupShareHeartbeatIntervalMs: 500 });
  const consumers: ShareConsumer[] = [];
  t.after(async () => {
    await Promise.all(consumers.map((c) => c.close({ timeoutMs: 5_000 })));
    await broker.stop();
  });
  return { bootstrap: broker.bootstrap, consumers };
}

async function pollUntil(consumer: ShareConsumer, count: number, onRecords: (records: ShareConsumerRecord[]) => void = () => undefined, timeoutMs = 20_000): Promise<ShareConsumerRecord[]> {
  const got: ShareConsumerRecord[] = [];
  const deadline = Date.now() + timeoutMs;
  while (got.length < count) {
    if (Date.now() > deadline) throw new Error(`got ${got.length} of ${count} records`);
    const records = await consumer.poll({ timeoutMs: 500 });
    got.push(...records);
    onRecords(records);
  }
  return got;
}

test('implicit mode: records come with delivery count 1 and are accepted by the next poll and by commitSync; the callback hears of it', T, async (t) => {
  const { bootstrap, consumers: open } = await setup(t);
  await createTopic(bootstrap, 'sc-implicit', 1);
  const commits: AcknowledgementCommit[] = [];
  const consumer = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-implicit', onAcknowledgementCommit: (c) => commits.push(c) });
  open.push(consumer);
  consumer.subscribe(['sc-implicit']);
  assert.deepEqual(consumer.subscription(), ['sc-implicit']);
  await warmUp(bootstrap, 'sc-implicit', 1, [consumer]);
  assert.equal(consumer.acquisitionLockTimeoutMs(), 30_000);
  assert.deepEqual(consumer.assignment(), [{ topic: 'sc-implicit', partition: 0 }]);

  await produce(bootstrap, 'sc-implicit', 0, Array.from({ length: 10 }, (_, i) => `v${i}`));
  const got = await pollUntil(consumer, 10);
  assert.deepEqual(got.map(valueOfShare), Array.from({ length: 10 }, (_, i) => `v${i}`));
  assert.ok(got.every((r) => r.deliveryCount === 1));
  const results = await consumer.commitSync({ timeoutMs: 10_000 });
  assert.equal(results.length, 1);
  assert.equal(results[0]!.error, null);
  assert.equal(results[0]!.topic, 'sc-implicit');
  assert.ok(commits.some((c) => c.offsets.includes(got.at(-1)!.offset) && c.error === null), 'the callback was told');

  // Nothing comes back: everything was accepted.
  assert.deepEqual(await consumer.poll({ timeoutMs: 300 }), []);
  assert.throws(() => consumer.acknowledge(got[0]!), { code: 'ERR_ILLEGAL_STATE' });
});

test('explicit mode: RELEASE redelivers with delivery count 2, REJECT never again, an unacknowledged poll throws', T, async (t) => {
  const { bootstrap, consumers: open } = await setup(t);
  await createTopic(bootstrap, 'sc-explicit', 1);
  const consumer = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-explicit', acknowledgementMode: 'explicit' });
  open.push(consumer);
  consumer.subscribe(['sc-explicit']);
  await warmUp(bootstrap, 'sc-explicit', 1, [consumer]);

  await produce(bootstrap, 'sc-explicit', 0, ['a', 'b', 'c', 'd', 'e', 'f']);
  // b and f are released on their first delivery, d is rejected, everything else accepted.
  const seen: string[] = [];
  const accepted: string[] = [];
  const deadline = Date.now() + 20_000;
  let threw = false;
  while (accepted.length < 5) {
    if (Date.now() > deadline) throw new Error(`accepted only ${accepted.join(',')}`);
    const records = await consumer.poll({ timeoutMs: 500 });
    if (records.length > 0 && !threw) {
      await assert.rejects(consumer.poll({ timeoutMs: 0 }), { code: 'ERR_ILLEGAL_STATE' });
      threw = true;
    }
    for (const r of records) {
      const v = valueOfShare(r);
      seen.push(`${v}:${r.deliveryCount}`);
      if ((v === 'b' || v === 'f') && r.deliveryCount === 1) consumer.acknowledge(r, 'RELEASE');
      else if (v === 'd') consumer.acknowledge(r, 'REJECT');
      else {
        consumer.acknowledge(r, 'ACCEPT');
        accepted.push(v);
      }
    }
  }
  const results = await consumer.commitSync({ timeoutMs: 10_000 });
  assert.ok(results.every((r) => r.error === null));
  assert.ok(threw, 'a poll with records unacknowledged threw');
  assert.deepEqual(accepted.sort(), ['a', 'b', 'c', 'e', 'f']);
  assert.ok(seen.includes('b:2') && seen.includes('f:2'), `released records came back with delivery count 2: ${seen.join(' ')}`);
  assert.equal(seen.filter((s) => s.startsWith('d:')).length, 1, 'the rejected record came once');
  assert.deepEqual(await consumer.poll({ timeoutMs: 300 }), []);
});

test('two share consumers share a topic: every record accepted exactly once, by both', T, async (t) => {
  const { bootstrap, consumers: open } = await setup(t);
  await createTopic(bootstrap, 'sc-two', 4);
  const consumers = await Promise.all([1, 2].map((i) => ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-two', clientId: `c${i}`, maxPollRecords: 10 })));
  open.push(...consumers);
  for (const c of consumers) c.subscribe(['sc-two']);
  await warmUp(bootstrap, 'sc-two', 4, consumers);
  const expected: string[] = [];
  for (let p = 0; p < 4; p++) {
    const values = Array.from({ length: 50 }, (_, i) => `p${p}-${i}`);
    expected.push(...values);
    await produce(bootstrap, 'sc-two', p, values);
  }
  const by = consumers.map(() => [] as string[]);
  const deadline = Date.now() + 30_000;
  while (by.flat().length < expected.length) {
    if (Date.now() > deadline) throw new Error(`got ${by.flat().length} of ${expected.length}`);
    await Promise.all(consumers.map(async (c, i) => { for (const r of await c.poll({ timeoutMs: 200 })) by[i]!.push(valueOfShare(r)); }));
  }
  for (const c of consumers) await c.commitSync({ timeoutMs: 10_000 });
  assert.deepEqual(by.flat().sort(), expected.sort());
  assert.ok(by.every((values) => values.length > 0), `both members got records: ${by.map((v) => v.length).join(' / ')}`);
});

test('close() releases what the member acquired and did not acknowledge: another member gets it with delivery count 2', T, async (t) => {
  const { bootstrap, consumers: open } = await setup(t);
  await createTopic(bootstrap, 'sc-close', 1);
  const first = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-close', acknowledgementMode: 'explicit' });
  first.subscribe(['sc-close']);
  await warmUp(bootstrap, 'sc-close', 1, [first]);
  await produce(bootstrap, 'sc-close', 0, ['x', 'y', 'z']);
  const held = await pollUntil(first, 3);
  first.acknowledge(held[0]!);
  await first.close({ timeoutMs: 10_000 });
  assert.throws(() => first.subscribe(['sc-close']), { code: 'ERR_ILLEGAL_STATE' });

  const second = await ShareConsumer.connect({ bootstrapServers: bootstrap, groupId: 'g-close' });
  open.push(second);
  second.subscribe(['sc-close']);
  const again = await pollUntil(second, 2);
  assert.deepEqual(again.map((r) => `${valueOfShare(r)}:${r.deliveryCount}`), ['y:2', 'z:2']);
});
