/**
 * The fetcher's prefetch against a broker that parks a Fetch with nothing to return for up to
 * fetch.max.wait.ms. One Fetch is in flight per broker, and a partition already holding a
 * prefetched response (fetched from the end of the data being given out) is left out of it.
 * When every partition that Fetch would carry is at its end, it would park, and the held
 * partition's next fetch — with data waiting at the broker — could not go out until it came
 * back. Such a Fetch is not sent: the held partition's next fetch carries those partitions
 * as soon as its buffered data is given out. On a manual clock against the scripted broker,
 * which answers at most 10 records per partition per Fetch and parks empty fetches for the
 * whole fetch.max.wait.ms (5 s here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import { FakeKafka } from '../support/fake-kafka.js';

const TIMEOUT = { timeout: 20_000 };
const MAX_WAIT_MS = 5_000;
const STEP_MS = 10;

interface Setup {
  readonly scheduler: ManualScheduler;
  readonly fake: FakeKafka;
  readonly consumer: Consumer;
}

/** A consumer assigned t-0..t-(n-1), where t-p holds ends[p] records; 10 records per partition per Fetch answer and per poll. */
function setup(ends: readonly number[], options: Partial<ConsumerOptions> = {}): Setup {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.maxRecordsPerFetch = 10;
  fake.topics.set('t', ends.length);
  ends.forEach((end, p) => fake.logEnd.set(`t:${p}`, end));
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', autoOffsetReset: 'earliest', fetchMaxWaitMs: MAX_WAIT_MS, maxPollRecords: 10,
    scheduler, connectionFactory: fake.connectionFactory, ...options,
  });
  consumer.assign(ends.map((_, partition) => ({ topic: 't', partition })));
  return { scheduler, fake, consumer };
}

/** Polls (10 ms of manual time each) until `n` records came; returns "p:value" in order and the manual time it took. */
async function pollRecords(s: Setup, n: number, limitMs = 3 * MAX_WAIT_MS): Promise<{ records: string[]; tookMs: number }> {
  const start = s.scheduler.nowMs();
  const records: string[] = [];
  while (records.length < n) {
    assert.ok(s.scheduler.nowMs() - start < limitMs, `${records.length} of ${n} records after ${limitMs} ms of manual time`);
    const polled = s.consumer.poll({ timeoutMs: STEP_MS });
    await s.scheduler.advance(STEP_MS);
    for (const r of await polled) records.push(`${r.partition}:${r.value!.toString()}`);
  }
  return { records, tookMs: s.scheduler.nowMs() - start };
}

const range = (partition: number, from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `${partition}:v${from + i}`);

/** Every Fetch sent so far: when, and "partition@offset" of what it carried. */
function fetches(fake: FakeKafka): { atMs: number; parts: string[] }[] {
  return fake.requests('Fetch').map((f) => ({ atMs: f.atMs, parts: f.body.topics.flatMap((t) => t.partitions.map((p) => `${p.partition}@${p.fetchOffset}`)) }));
}

async function closeNow(s: Setup): Promise<void> {
  const closing = s.consumer.close();
  await s.scheduler.advance(0);
  await closing;
}

test('a partition at its end does not park the Fetch that the held partition\'s next fetch needs: 50 records of t-0 in 10 ms polls, not one wait of fetch.max.wait.ms', TIMEOUT, async () => {
  const s = setup([50, 0]);
  const { records, tookMs } = await pollRecords(s, 50);
  assert.deepEqual(records, range(0, 0, 50));
  // Five responses, each given out by one poll, each prefetched while the one before was given out.
  assert.ok(tookMs <= 10 * STEP_MS, `the records took ${tookMs} ms of manual time (fetch.max.wait.ms is ${MAX_WAIT_MS})`);
  const carried = fetches(s.fake).filter((f) => f.parts.includes('0@40'));
  assert.equal(carried.length, 1);
  assert.ok(carried[0]!.atMs < MAX_WAIT_MS, `t-0's fetch from 40 went out at ${carried[0]!.atMs} ms`);
  // Until t-0's last response is fetched, every Fetch carries t-0; then t-1 waits at the broker alone.
  const sent = fetches(s.fake);
  assert.ok(sent.slice(0, -1).every((f) => f.parts.some((p) => p.startsWith('0@'))), JSON.stringify(sent));
  assert.deepEqual(sent.at(-1)!.parts, ['1@0']);
  await closeNow(s);
});

test('the data on the broker of a partition left out while another was held comes once the held partition\'s buffered response is given out', TIMEOUT, async () => {
  const s = setup([50, 0]);
  assert.deepEqual((await pollRecords(s, 10)).records, range(0, 0, 10));
  await s.scheduler.advance(0);
  // t-1 was at its end (high watermark 0) when it was last fetched; records arrive since.
  s.fake.logEnd.set('t:1', 5);
  const { records, tookMs } = await pollRecords(s, 45);
  assert.deepEqual(records.filter((r) => r.startsWith('0:')), range(0, 10, 50));
  assert.deepEqual(records.filter((r) => r.startsWith('1:')), range(1, 0, 5));
  assert.ok(tookMs <= 10 * STEP_MS, `took ${tookMs} ms`);
  await closeNow(s);
});

test('a held partition that is paused holds nothing back: the other partition\'s new records come at once', TIMEOUT, async () => {
  const s = setup([50, 0]);
  assert.deepEqual((await pollRecords(s, 10)).records, range(0, 0, 10));
  await s.scheduler.advance(0);
  s.consumer.pause([{ topic: 't', partition: 0 }]);
  s.fake.logEnd.set('t:1', 5);
  const paused = await pollRecords(s, 5);
  assert.deepEqual(paused.records, range(1, 0, 5));
  assert.ok(paused.tookMs <= 2 * STEP_MS, `t-1's records took ${paused.tookMs} ms with t-0 paused`);
  // t-1's next Fetch, sent while t-0 was paused, waits at the broker: t-0's fetch from 30 goes
  // out once it returns (a Fetch cannot be called back). The buffered records come at once.
  // t-1's next Fetch, sent while t-0 was paused, waits at the broker: t-0's next fetch goes out
  // once it returns (a Fetch cannot be called back). The buffered records come at once.
  s.consumer.resume([{ topic: 't', partition: 0 }]);
  const resumed = await pollRecords(s, 10);
  assert.deepEqual(resumed.records, range(0, 10, 20));
  assert.ok(resumed.tookMs <= 2 * STEP_MS, `t-0's buffered records took ${resumed.tookMs} ms after resume`);
  assert.deepEqual((await pollRecords(s, 30)).records, range(0, 20, 50));
  await closeNow(s);
});

test('read_committed: a partition whose position is at its last stable offset (an open transaction above it) counts as at its end', TIMEOUT, async () => {
  // t-1: three records of a transaction still open, so its high watermark is 3 but its
  // last stable offset 0; a read_committed Fetch from 0 has nothing to return and parks.
  const s = setup([50, 3], { isolationLevel: 'read_committed' });
  s.fake.lastStable.set('t:1', 0);
  const { records, tookMs } = await pollRecords(s, 50);
  assert.deepEqual(records, range(0, 0, 50));
  assert.ok(tookMs <= 10 * STEP_MS, `the records took ${tookMs} ms of manual time (fetch.max.wait.ms is ${MAX_WAIT_MS})`);
  await closeNow(s);
});

test('a held partition whose prefetched response reaches its end holds nothing back: the other partitions wait at the broker at once', TIMEOUT, async () => {
  // t-0: 20 records, two responses; the second (prefetched) ends at the high watermark.
  const s = setup([20, 0]);
  assert.deepEqual((await pollRecords(s, 10)).records, range(0, 0, 10));
  await s.scheduler.advance(0);
  const sent = fetches(s.fake);
  assert.deepEqual(sent.at(-1)!.parts, ['1@0'], 't-1 alone waits at the broker for new records');
  assert.ok(sent.at(-1)!.atMs <= STEP_MS);
  await closeNow(s);
});

test('two leaders: a held partition holds back only its own leader\'s Fetch; the other leader\'s partition waits at its broker at once', TIMEOUT, async () => {
  // t-0 and t-2 are led by broker 0, t-1 by broker 1; only t-0 has records.
  const s = setup([50, 0, 0]);
  s.fake.on('Metadata', () => ({
    brokers: [0, 1].map((nodeId) => ({ nodeId, host: '127.0.0.1', port: 9092 + nodeId, rack: null })), clusterId: 'fake', controllerId: 0,
    topics: [{
      errorCode: 0, name: 't', topicId: s.fake.topicId('t'), isInternal: false,
      partitions: [0, 1, 0].map((leaderId, partitionIndex) => ({
        errorCode: 0, partitionIndex, leaderId, leaderEpoch: 0, replicaNodes: [leaderId], isrNodes: [leaderId], offlineReplicas: [],
      })),
    }],
  }));
  const { records, tookMs } = await pollRecords(s, 50);
  assert.deepEqual(records, range(0, 0, 50));
  assert.ok(tookMs <= 10 * STEP_MS, `took ${tookMs} ms`);
  const byConnection = new Map<number, string[][]>();
  for (const f of s.fake.requests('Fetch')) {
    const parts = f.body.topics.flatMap((t) => t.partitions.map((p) => `${p.partition}@${p.fetchOffset}`));
    byConnection.set(f.connection, [...byConnection.get(f.connection) ?? [], parts]);
  }
  const leader1 = [...byConnection.values()].find((list) => list.some((parts) => parts.includes('1@0')))!;
  assert.deepEqual(leader1, [['1@0']], 'broker 1: one Fetch for t-1, waiting at the broker from the start');
  const leader0 = [...byConnection.values()].find((list) => list.some((parts) => parts.includes('0@0')))!;
  assert.ok(leader0.slice(0, -1).every((parts) => parts.some((p) => p.startsWith('0@'))), `broker 0: ${JSON.stringify(leader0)}`);
  assert.deepEqual(leader0.at(-1), ['2@0'], 'broker 0: t-2 waits alone only once t-0\'s last response is fetched');
  await closeNow(s);
});
