/**
 * At-least-once by construction: what the consumer commits is what the application has
 * finished with, never more. On a manual clock against a scripted one-member group:
 *
 * - poll(): the records a poll returned count as consumed at the next poll() (or close()),
 *   as in Java, whose auto-commit runs inside poll().
 * - the async iterator: a record is finished when the loop asks for the next one; leaving
 *   the loop by a throw (or a break, which JavaScript reports to the iterator the same way)
 *   leaves it unfinished; aborting the iterator's signal ends the loop after the record.
 * - the auto-commit task: first due auto.commit.interval.ms after the assignment, then at
 *   the previous commit's completion + the interval; it sends nothing when nothing changed.
 * - close(), the commit before a rebalance, a rebalance listener's commitSync() and
 *   commitSync() without offsets commit the same consumed offsets; commitSync(offsets)
 *   commits exactly what it is given, and later commits never go back behind it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer, type ConsumerOptions, type ConsumerRecord } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeKafka, soloGroup } from '../support/fake-kafka.js';
import { testRangeAssignor } from '../support/range-assignor.js';

const INTERVAL_MS = 5_000;
const HEARTBEAT_MS = 3_000;
const TIMEOUT = { timeout: 20_000 };

interface Setup {
  readonly scheduler: ManualScheduler;
  readonly fake: FakeKafka;
  readonly consumer: Consumer;
  readonly listener: string[];
}

/** A consumer of t (one partition, `records` records v0, v1, ...) in a group where it is alone; auto-commit every 5 s. */
function setup(records: number, options: Partial<ConsumerOptions> = {}, onRevoked?: (consumer: Consumer) => Promise<void>, partitions = 1): Setup {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', partitions);
  for (let p = 0; p < partitions; p++) fake.logEnd.set(`t:${p}`, records);
  soloGroup(fake);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', assignors: [testRangeAssignor()], autoOffsetReset: 'earliest',
    autoCommitIntervalMs: INTERVAL_MS, heartbeatIntervalMs: HEARTBEAT_MS, fetchMaxWaitMs: 500, scheduler, connectionFactory: fake.connectionFactory,
    ...options,
  });
  const listener: string[] = [];
  consumer.subscribe(['t'], {
    onPartitionsAssigned: () => { listener.push('assigned'); },
    onPartitionsRevoked: async () => {
      listener.push('revoked');
      await onRevoked?.(consumer);
    },
  });
  return { scheduler, fake, consumer, listener };
}

/** The offsets sent for t-0 by every OffsetCommit so far, with their times. */
function commits(fake: FakeKafka): { atMs: number; offset: bigint }[] {
  return fake.requests('OffsetCommit').map((c) => ({ atMs: c.atMs, offset: c.body.topics[0]!.partitions[0]!.committedOffset }));
}

const offsetsOf = (fake: FakeKafka): bigint[] => commits(fake).map((c) => c.offset);

const values = (records: readonly ConsumerRecord[]): string[] => records.map((r) => r.value!.toString());

/** Moves the clock in 10 ms steps until `done()`, at most `ms`. */
async function advanceUntil(scheduler: ManualScheduler, done: () => boolean, ms = 10_000): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    assert.ok(waited < ms, `condition not reached within ${ms} ms of manual time`);
    await scheduler.advance(10);
  }
}

/** Polls (10 ms each, awaited) until `polled` holds `n` values: the last poll is the one that returned the last records. */
async function pollUntil(s: Setup, polled: string[], n: number, ms = 10_000): Promise<void> {
  for (let waited = 0; polled.length < n; waited += 10) {
    assert.ok(waited < ms, `${n} records not polled within ${ms} ms of manual time`);
    const p = s.consumer.poll({ timeoutMs: 10 });
    await s.scheduler.advance(10);
    polled.push(...values(await p));
  }
}

async function closeNow(s: Setup): Promise<void> {
  const closing = s.consumer.close();
  await s.scheduler.advance(0);
  await closing;
}

/**
 * Runs `for await (const record of consumer)` whose body waits until the test finishes or
 * fails the record in hand: `inHand` is what the body holds, in order.
 */
function loop(iterable: AsyncIterable<ConsumerRecord>, onBreak?: (r: ConsumerRecord) => boolean): {
  readonly inHand: ConsumerRecord[];
  finish(): void;
  fail(err: Error): void;
  readonly done: Promise<void>;
} {
  const inHand: ConsumerRecord[] = [];
  let settle: { resolve(): void; reject(err: Error): void } | null = null;
  const done = (async () => {
    for await (const record of iterable) {
      inHand.push(record);
      if (onBreak?.(record)) break;
      await new Promise<void>((resolve, reject) => { settle = { resolve, reject }; });
    }
  })();
  return {
    inHand,
    // No record in hand (the loop is waiting for the next): nothing to finish.
    finish: () => { const s = settle; settle = null; s?.resolve(); },
    fail: (err) => { const s = settle!; settle = null; s.reject(err); },
    done,
  };
}

test('poll(): a poll\'s records are committed from the next poll on; auto-commit due 5 s after the assignment, then at the previous commit\'s completion + 5 s; nothing sent when nothing changed; close() finishes the last poll\'s records', TIMEOUT, async () => {
  const s = setup(3);
  const { scheduler, fake, consumer } = s;
  // The oracle, from what the polls returned: a poll finishes everything returned before it.
  const polls: { atMs: number; finished: bigint }[] = [];
  const polled: string[] = [];
  let returnedEnd = 0n;
  let gate: ReturnType<FakeKafka['hold']> | null = null;
  for (let second = 0; second <= 14; second++) {
    // Records arrive just before each commit, so the commits happen with records in hand.
    if (second === 3) fake.logEnd.set('t:0', 5);
    if (second === 9) fake.logEnd.set('t:0', 6);
    if (second === 11) fake.logEnd.set('t:0', 8);
    if (second === 4) gate = fake.hold('OffsetCommit'); // the first commit's response waits until 8 s
    if (second === 8) gate!.open();
    polls.push({ atMs: scheduler.nowMs(), finished: returnedEnd });
    const records = await consumer.poll({ timeoutMs: 0 });
    polled.push(...values(records));
    if (records.length > 0) returnedEnd = records.at(-1)!.offset + 1n;
    await scheduler.advance(1_000);
  }
  assert.deepEqual(polled, ['v0', 'v1', 'v2', 'v3', 'v4', 'v5', 'v6', 'v7']);
  const sent = commits(fake);
  assert.deepEqual(sent.map((c) => c.atMs), [5_000, 13_000], 'due at 5 s; then the completion (8 s) + 5 s; one task at a time');
  for (const c of sent) {
    // Timers due at T fire before the poll made at T.
    const lastPoll = polls.filter((p) => p.atMs < c.atMs).at(-1)!;
    assert.equal(c.offset, lastPoll.finished, `the commit at ${c.atMs} ms: what polls before the latest returned`);
  }
  assert.deepEqual(sent.map((c) => c.offset), [3n, 6n], 'v3-v4 and v6-v7 were in hand at 5 s and 13 s');
  // The poll at 14 s finished v6-v7: the 18 s run commits them; after that nothing changes,
  // and the task keeps its schedule but sends nothing.
  await scheduler.advance(20_000);
  assert.deepEqual(commits(fake).slice(2), [{ atMs: 18_000, offset: 8n }], 'one more commit, then nothing changed and nothing was sent');
  fake.logEnd.set('t:0', 10);
  await pollUntil(s, polled, 10);
  assert.equal(commits(fake).length, 3, 'v8, v9 are in the application\'s hands');
  await closeNow(s);
  assert.deepEqual(offsetsOf(fake).slice(3), [10n], 'close() counts what the last poll returned as finished');
  assert.equal(fake.requests('LeaveGroup').length, 1, 'close leaves the group');
});

test('for await: a record is committed once the loop asks for the next one; a throw from the body leaves it unfinished', TIMEOUT, async () => {
  const s = setup(5);
  const { scheduler, fake, consumer } = s;
  const l = loop(consumer);
  await advanceUntil(scheduler, () => l.inHand.length === 1);
  assert.deepEqual(values(l.inHand), ['v0']);
  await advanceUntil(scheduler, () => commits(fake).length === 1);
  assert.deepEqual(offsetsOf(fake), [0n], 'v0 is being processed: the commit says read from v0');
  l.finish();
  await advanceUntil(scheduler, () => l.inHand.length === 2);
  await advanceUntil(scheduler, () => commits(fake).length === 2);
  assert.deepEqual(offsetsOf(fake), [0n, 1n], 'v0 finished when the loop asked for v1');
  l.fail(new Error('the application failed on v1'));
  await assert.rejects(l.done, /failed on v1/);
  await scheduler.advance(3 * INTERVAL_MS);
  await closeNow(s);
  assert.deepEqual(offsetsOf(fake), [0n, 1n], 'v1 was never finished: nothing commits past it, close() included');
});

test('for await: break leaves the record in hand unfinished too (JavaScript reports break and throw to the iterator alike)', TIMEOUT, async () => {
  const s = setup(5);
  const { scheduler, fake, consumer } = s;
  const l = loop(consumer, (r) => r.offset === 2n);
  await advanceUntil(scheduler, () => l.inHand.length === 1);
  l.finish();
  await advanceUntil(scheduler, () => l.inHand.length === 2);
  l.finish();
  await l.done;
  assert.deepEqual(values(l.inHand), ['v0', 'v1', 'v2']);
  await closeNow(s);
  assert.deepEqual(offsetsOf(fake), [2n], 'v0 and v1 finished; v2, where the loop broke off, is read again after a restart');
});

test('for await with a signal: aborting it while a record is processed ends the loop once that record is finished, and it is committed', TIMEOUT, async () => {
  const s = setup(5);
  const { scheduler, fake, consumer } = s;
  const stop = new AbortController();
  const l = loop(consumer.records({ signal: stop.signal }));
  await advanceUntil(scheduler, () => l.inHand.length === 1);
  l.finish();
  await advanceUntil(scheduler, () => l.inHand.length === 2);
  stop.abort();
  l.finish();
  await l.done;
  assert.deepEqual(values(l.inHand), ['v0', 'v1'], 'nothing handed out after the abort');
  await closeNow(s);
  assert.deepEqual(offsetsOf(fake), [2n], 'v1 finished before the loop ended');
});

test('commitSync(): without offsets it commits the finished records; with offsets exactly those, and auto-commit never goes back behind them', TIMEOUT, async () => {
  const s = setup(5);
  const { scheduler, fake, consumer } = s;
  const l = loop(consumer);
  await advanceUntil(scheduler, () => l.inHand.length === 1);
  l.finish();
  await advanceUntil(scheduler, () => l.inHand.length === 2);
  const sync = consumer.commitSync();
  await scheduler.advance(0);
  await sync;
  assert.deepEqual(offsetsOf(fake), [1n], 'v1 is in hand: commitSync() commits v0 only');
  // The application says it is done with v1 itself: finer control than the loop gives.
  const explicit = consumer.commitSync([{ topic: 't', partition: 0, offset: 2n }]);
  await scheduler.advance(0);
  await explicit;
  assert.deepEqual(offsetsOf(fake), [1n, 2n]);
  await scheduler.advance(2 * INTERVAL_MS);
  assert.deepEqual(offsetsOf(fake), [1n, 2n], 'auto-commit has nothing newer than 2 to say, and does not go back to 1');
  l.finish();
  await advanceUntil(scheduler, () => l.inHand.length === 3);
  l.finish();
  await advanceUntil(scheduler, () => l.inHand.length === 4);
  await advanceUntil(scheduler, () => commits(fake).length === 3);
  assert.deepEqual(offsetsOf(fake), [1n, 2n, 3n]);
  l.fail(new Error('stop'));
  await assert.rejects(l.done);
  await closeNow(s);
});

test('seek(): a seek back makes the consumed offset follow, so auto-commit commits where the application chose to restart', TIMEOUT, async () => {
  const s = setup(3);
  const { scheduler, fake, consumer } = s;
  const polled: string[] = [];
  await pollUntil(s, polled, 3);
  await consumer.poll({ timeoutMs: 0 }); // v0-v2 finished
  await advanceUntil(scheduler, () => commits(fake).length === 1);
  assert.deepEqual(offsetsOf(fake), [3n]);
  consumer.seek({ topic: 't', partition: 0 }, 0);
  await advanceUntil(scheduler, () => commits(fake).length === 2);
  assert.deepEqual(offsetsOf(fake), [3n, 0n]);
  await closeNow(s);
});

test('rebalance: the commit before rejoining and a commitSync() in onPartitionsRevoked cover the records the last poll returned, which the rejoining poll finished', TIMEOUT, async () => {
  const s = setup(3, {}, async (consumer) => { await consumer.commitSync(); });
  const { scheduler, fake, consumer } = s;
  const polled: string[] = [];
  await pollUntil(s, polled, 3);
  assert.deepEqual(commits(fake), [], 'v0-v2 in hand, no commit yet');
  const joins = fake.requests('JoinGroup').length;
  fake.once('Heartbeat', () => ({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS }));
  await scheduler.advance(HEARTBEAT_MS);
  const rejoin = consumer.poll({ timeoutMs: 100 });
  await scheduler.advance(100);
  await rejoin;
  assert.deepEqual(s.listener, ['assigned', 'revoked', 'assigned']);
  const beforeRejoin = commits(fake).filter((c) => c.atMs <= fake.requests('JoinGroup')[joins]!.atMs);
  assert.deepEqual(beforeRejoin.map((c) => c.offset), [3n, 3n], 'auto-commit before the rebalance, then the listener\'s commitSync()');
  await closeNow(s);
});

test('for await: a partition sought while the loop works on a batch gives out from the new position only, not the rest of the old batch', TIMEOUT, async () => {
  const s = setup(3, {}, undefined, 2);
  const { scheduler, consumer } = s;
  const l = loop(consumer);
  await advanceUntil(scheduler, () => l.inHand.length === 1);
  const first = l.inHand[0]!;
  const other = { topic: 't', partition: 1 - first.partition };
  // The batch in hand holds both partitions' records; rewind the other one before reaching it.
  consumer.seek(other, 0);
  // Finish every record as it comes, until nothing more comes for 2 s.
  for (let quiet = 0; quiet < 2_000; quiet += 10) {
    const before = l.inHand.length;
    l.finish();
    await scheduler.advance(10);
    if (l.inHand.length > before) quiet = 0;
  }
  const handed = l.inHand.map((r) => `${r.partition}:${r.offset}`);
  assert.deepEqual(handed.filter((h) => h.startsWith(`${other.partition}:`)), [0, 1, 2].map((o) => `${other.partition}:${o}`), 'each record of the sought partition once');
  assert.equal(handed.length, 6);
  await closeNow(s);
  await l.done; // the loop was waiting for the next record: closing ends it
});
