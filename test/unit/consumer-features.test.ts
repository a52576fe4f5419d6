/**
 * Consumer features against Brook's broker over real sockets: pattern subscription picking up
 * a topic created later (after a metadata refresh), pause/resume, seek / seekToBeginning /
 * seekToEnd, OFFSET_OUT_OF_RANGE under autoOffsetReset earliest / latest / none, and
 * position() vs committed().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { Consumer, NoOffsetForPartitionError, type ConsumerOptions } from '../../src/index.js';
import { createTopic, produce, valueOf } from '../support/consumer-helpers.js';

const opened: Consumer[] = [];
function consumer(bootstrap: string, extra: Partial<ConsumerOptions> = {}): Consumer {
  const c = new Consumer({ bootstrapServers: bootstrap, autoOffsetReset: 'earliest', fetchMaxWaitMs: 50, heartbeatIntervalMs: 100, ...extra });
  opened.push(c);
  return c;
}

async function withBroker(fn: (bootstrap: string) => Promise<void>): Promise<void> {
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  try {
    await fn(broker.bootstrap);
  } finally {
    await Promise.all(opened.splice(0).map((c) => c.close()));
    await broker.stop();
  }
}

/** Polls until at least `n` values arrived, however long that takes: the test's timeout is the bound. */
async function pollValues(c: Consumer, n: number): Promise<string[]> {
  const out: string[] = [];
  while (out.length < n) out.push(...(await c.poll({ timeoutMs: 50 })).map(valueOf));
  return out;
}

/**
 * What `times` more polls bring. For checks that nothing more comes: an empty poll is always
 * allowed, so such a check fails only when records do come, never because the machine is slow.
 */
async function pollMore(c: Consumer, times: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < times; i++) out.push(...(await c.poll({ timeoutMs: 50 })).map(valueOf));
  return out;
}

const values = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

test('pattern subscription: a matching topic created later is picked up after a metadata refresh; others are not', { timeout: 30_000 }, () => withBroker(async (bootstrap) => {
  await createTopic(bootstrap, 'orders-a', 1);
  await createTopic(bootstrap, 'other', 1);
  const c = consumer(bootstrap, { groupId: 'pattern', metadataMaxAgeMs: 200 });
  c.subscribe(/^orders-/);
  await produce(bootstrap, 'orders-a', 0, values('a', 5));
  await produce(bootstrap, 'other', 0, values('x', 5));
  assert.deepEqual(await pollValues(c, 5), values('a', 5));
  assert.deepEqual(c.subscription(), ['orders-a']);
  await createTopic(bootstrap, 'orders-b', 2);
  await produce(bootstrap, 'orders-b', 1, values('b', 3));
  assert.deepEqual(await pollValues(c, 3), values('b', 3));
  assert.deepEqual(c.subscription(), ['orders-a', 'orders-b']);
  assert.deepEqual(c.assignment().map((p) => `${p.topic}-${p.partition}`).sort(), ['orders-a-0', 'orders-b-0', 'orders-b-1']);
}));

test('pause/resume: no records from paused partitions; resumed ones continue where they were', { timeout: 30_000 }, () => withBroker(async (bootstrap) => {
  await createTopic(bootstrap, 't', 2);
  await produce(bootstrap, 't', 0, values('p0-', 5));
  await produce(bootstrap, 't', 1, values('p1-', 5));
  const c = consumer(bootstrap);
  const p0 = { topic: 't', partition: 0 };
  const p1 = { topic: 't', partition: 1 };
  c.assign([p0, p1]);
  c.pause([p1]);
  assert.deepEqual(c.paused(), [p1]);
  assert.deepEqual(await pollValues(c, 5), values('p0-', 5));
  await produce(bootstrap, 't', 0, values('q0-', 2));
  // Only p0's new records come: p1's five were there all along, so a fetch that included the
  // paused partition would have brought them with q0's, or in the polls after.
  assert.deepEqual(await pollValues(c, 2), values('q0-', 2));
  assert.deepEqual(await pollMore(c, 5), [], 'nothing from the paused partition');
  c.resume([p1]);
  assert.deepEqual(c.paused(), []);
  assert.deepEqual(await pollValues(c, 5), values('p1-', 5));
}));

test('seek, seekToBeginning, seekToEnd', { timeout: 30_000 }, () => withBroker(async (bootstrap) => {
  await createTopic(bootstrap, 't', 1);
  await produce(bootstrap, 't', 0, values('v', 10));
  const c = consumer(bootstrap, { autoOffsetReset: 'latest' });
  const tp = { topic: 't', partition: 0 };
  c.assign([tp]);
  assert.equal(await c.position(tp), 10n, 'latest: the end');
  c.seek(tp, 7);
  assert.equal(await c.position(tp), 7n);
  assert.deepEqual(await pollValues(c, 3), ['v7', 'v8', 'v9']);
  c.seekToBeginning([tp]);
  assert.equal(await c.position(tp), 0n);
  assert.deepEqual((await pollValues(c, 10)).slice(0, 2), ['v0', 'v1']);
  c.seekToEnd();
  assert.equal(await c.position(tp), 10n);
  await produce(bootstrap, 't', 0, ['w']);
  assert.deepEqual(await pollValues(c, 1), ['w']);
}));

test('OFFSET_OUT_OF_RANGE: earliest resets to the start, latest to the end, none raises NoOffsetForPartitionError', { timeout: 30_000 }, () => withBroker(async (bootstrap) => {
  await createTopic(bootstrap, 't', 1);
  await produce(bootstrap, 't', 0, values('v', 4));
  const tp = { topic: 't', partition: 0 };

  const early = consumer(bootstrap, { autoOffsetReset: 'earliest' });
  early.assign([tp]);
  early.seek(tp, 100);
  assert.deepEqual(await pollValues(early, 4), values('v', 4));

  const late = consumer(bootstrap, { autoOffsetReset: 'latest' });
  late.assign([tp]);
  late.seek(tp, 100);
  // Poll until the out-of-range answer has moved the position off 100, however long the round
  // trip takes; where it went, and what came meanwhile (nothing), is the check.
  const lateRecords: string[] = [];
  while ((await late.position(tp)) === 100n) lateRecords.push(...(await late.poll({ timeoutMs: 50 })).map(valueOf));
  assert.deepEqual(lateRecords, []);
  assert.equal(await late.position(tp), 4n, 'reset to the end');
  await produce(bootstrap, 't', 0, ['after']);
  assert.deepEqual(await pollValues(late, 1), ['after']);

  const none = consumer(bootstrap, { autoOffsetReset: 'none' });
  none.assign([tp]);
  await assert.rejects(none.poll({ timeoutMs: 500 }), (err: Error) => err instanceof NoOffsetForPartitionError && /t-0 \(no committed offset\)/.test(err.message), 'no position and none: typed error');
  none.seek(tp, 100);
  // Polls until the out-of-range answer comes back and raises (the test's timeout is the bound).
  await assert.rejects(async () => { for (;;) await none.poll({ timeoutMs: 100 }); },
    (err: Error) => err instanceof NoOffsetForPartitionError && /t-0 \(fetch position 100 out of range\)/.test(err.message), 'out of range and none: typed error');
  none.seek(tp, 1);
  assert.deepEqual((await pollValues(none, 2)).slice(0, 2), ['v1', 'v2'], 'a seek recovers');
}));

test('position() is the next offset to read; committed() is what the group stored; commitSync() commits what the application finished with', { timeout: 30_000 }, () => withBroker(async (bootstrap) => {
  await createTopic(bootstrap, 't', 1);
  await produce(bootstrap, 't', 0, values('v', 6));
  const tp = { topic: 't', partition: 0 };
  const c = consumer(bootstrap, { groupId: 'pos', enableAutoCommit: false, maxPollRecords: 4 });
  c.assign([tp]);
  assert.equal((await c.committed([tp])).get('t:0') ?? null, null, 'nothing committed yet');
  assert.equal(await c.position(tp), 0n, 'no committed offset: earliest');
  assert.equal((await pollValues(c, 4)).length, 4);
  assert.equal(await c.position(tp), 4n);
  assert.equal((await c.committed([tp])).get('t:0') ?? null, null, 'polling commits nothing');
  await c.commitSync();
  assert.equal((await c.committed([tp])).get('t:0'), 0n, 'the records of the last poll are still in the application\'s hands');
  assert.deepEqual(await pollValues(c, 2), ['v4', 'v5'], 'coming back for more finishes v0-v3');
  await c.commitSync();
  assert.equal((await c.committed([tp])).get('t:0'), 4n);
  await c.commitSync([{ topic: 't', partition: 0, offset: 2n }]);
  assert.equal((await c.committed([tp])).get('t:0'), 2n);
  assert.equal(await c.position(tp), 6n, 'a commit does not move the position');
  // A new consumer of the group starts at the committed offset.
  const d = consumer(bootstrap, { groupId: 'pos', enableAutoCommit: false });
  d.assign([tp]);
  assert.equal(await d.position(tp), 2n);
  assert.deepEqual(await pollValues(d, 4), ['v2', 'v3', 'v4', 'v5']);
}));
