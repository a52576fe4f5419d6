/**
 * A Kafka Streams 4.4 application with `processing.guarantee=exactly_once_v2` on Brook
 * (test/support/java StreamsWordCount: lines → words → groupBy (a repartition topic) → count
 * (a RocksDB store and its changelog topic) → output, the record cache off so every count
 * update is output). The input is a fixed set of lines; the true count of each word is
 * counted here from that input. A read_committed consumer of the output must see, per word,
 * exactly the counts 1, 2, ..., true count: none lost, none counted twice (an update above
 * the true count, or a count repeated, is a double count exactly-once forbids).
 *
 * 1. On Brook.
 * 2. On Brook, the application SIGKILLed mid-stream and started again on the same state
 *    directory: its new producer fences the old one's transactional id, whose open
 *    transaction is aborted.
 * 3. On Brook run as a child process, SIGKILLed while the application is mid-stream and
 *    started again on the same data directory and port: the application reconnects and the
 *    counts are still exact.
 * 4. On Apache Kafka 4.4 (the reference): the same exact counts, equal to Brook's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnBrook, startBrook, tempDir, type BrookProcess } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { buildJavaSupport } from '../support/java-oracle.js';
import { kafkaAvailable, startKafka } from '../support/kafka/kafka-broker.js';
import {
  finalCounts, produceLines, readWordCounts, startWordCountApp, totalWords, trueCounts, wordCountInput, wrongCounts, type WordCountOutput,
} from '../support/streams-word-count.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { Admin } from '../../src/index.js';

const PARTITIONS = 2;
const LINES = 2_000;
const INPUT = wordCountInput(LINES, 7);
const EXPECTED = trueCounts(INPUT);

async function createTopics(bootstrap: string, input: string, output: string): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    await admin.createTopic({ name: input, partitions: PARTITIONS });
    await admin.createTopic({ name: output, partitions: PARTITIONS });
  } finally {
    admin.close();
  }
}

function assertExact(output: WordCountOutput, what: string): void {
  const wrong = wrongCounts(output, EXPECTED);
  assert.deepEqual(wrong, [], `${what}: every word's read_committed counts are exactly 1..true count`);
  assert.equal(output.records, totalWords(EXPECTED), `${what}: one output record per input word`);
}

/** Runs the word count on `bootstrap` over the whole input (already produced) and reads its output. */
async function runToCompletion(bootstrap: string, prefix: string, cleanup: Cleanup): Promise<{ output: WordCountOutput; ms: number }> {
  const state = tempDir('brook-streams-state-');
  cleanup.add('remove the state dir', () => state.remove());
  const started = Date.now();
  const app = startWordCountApp({
    bootstrap, applicationId: `${prefix}-app`, input: `${prefix}-in`, output: `${prefix}-out`, guarantee: 'exactly_once_v2', stateDir: state.path,
  });
  cleanup.add('stop the application', () => app.close(15_000));
  await app.waitFor(/^state RUNNING$/, 60_000);
  const output = await readWordCounts(bootstrap, `${prefix}-out`, PARTITIONS, EXPECTED, 60_000);
  const ms = Date.now() - started;
  assert.equal(await app.close(), 0, `the application closes cleanly: ${app.lines.join(' | ')}\n${app.stderr().slice(-2000)}`);
  assert.deepEqual(app.lines.filter((l) => l.startsWith('error')), [], 'no stream thread died');
  return { output, ms };
}

/**
 * Waits until the output's log end offsets (which count open transactions' records and
 * markers too) reach a fifth of the output, so the application is mid-stream; returns them.
 */
async function waitForOutputProgress(bootstrap: string, output: string): Promise<bigint> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    const partitions = Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: output, partition }));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const end = [...(await admin.logEndOffsets(partitions)).values()].reduce((a, b) => a + b, 0n);
      if (end >= BigInt(Math.floor(totalWords(EXPECTED) / 5)) || Date.now() > deadline) return end;
      await sleep(20);
    }
  } finally {
    admin.close();
  }
}

test('Kafka Streams 4.4 word count with exactly_once_v2: exact counts on Brook, across a kill -9 of Brook, and as on Kafka 4.4', { timeout: 240_000 }, async (t) => {
  if (!kafkaAvailable()) {
    t.skip('java 17+ and Maven are needed for Kafka Streams');
    return;
  }
  buildJavaSupport();
  t.diagnostic(`${LINES} lines, ${totalWords(EXPECTED)} words, ${EXPECTED.size} distinct`);
  let brookCounts: Map<string, number> | undefined;

  await t.test('on Brook', async (st) => {
    const cleanup = new Cleanup();
    st.after(() => cleanup.run());
    const broker = await startBrook();
    cleanup.add('stop broker', () => broker.stop());
    await createTopics(broker.bootstrap, 'wc-in', 'wc-out');
    await produceLines(broker.bootstrap, 'wc-in', INPUT);
    const { output, ms } = await runToCompletion(broker.bootstrap, 'wc', cleanup);
    st.diagnostic(`complete in ${ms} ms from the application's start`);
    assertExact(output, 'Brook');
    brookCounts = finalCounts(output);
  });

  await t.test('on Brook, the application killed with SIGKILL mid-stream and started again on its state dir (its transactional id fenced)', async (st) => {
    const cleanup = new Cleanup();
    st.after(() => cleanup.run());
    const broker = await startBrook();
    cleanup.add('stop broker', () => broker.stop());
    await createTopics(broker.bootstrap, 'wca-in', 'wca-out');
    await produceLines(broker.bootstrap, 'wca-in', INPUT);
    const state = tempDir('brook-streams-state-');
    cleanup.add('remove the state dir', () => state.remove());
    const options = { bootstrap: broker.bootstrap, applicationId: 'wca-app', input: 'wca-in', output: 'wca-out', guarantee: 'exactly_once_v2', stateDir: state.path } as const;
    const first = startWordCountApp(options);
    cleanup.add('stop the first application', () => first.close(5_000));
    await first.waitFor(/^state RUNNING$/, 60_000);
    const atKill = await waitForOutputProgress(broker.bootstrap, 'wca-out');
    first.child.kill('SIGKILL');
    await first.close();
    st.diagnostic(`application killed with the output's log end offsets at ${atKill} of ${totalWords(EXPECTED)} records`);
    assert.ok(atKill < BigInt(totalWords(EXPECTED)), 'the application was mid-stream at the kill');

    const second = startWordCountApp(options);
    cleanup.add('stop the second application', () => second.close(15_000));
    const output = await readWordCounts(broker.bootstrap, 'wca-out', PARTITIONS, EXPECTED, 90_000);
    assertExact(output, 'application killed and started again');
    assert.equal(await second.close(), 0, `the application closes cleanly: ${second.lines.join(' | ')}\n${second.stderr().slice(-2000)}`);

    // The second application reused the first's transactional id (its process id is kept in
    // the state dir), so its InitProducerId fenced the first: the id's epoch moved past 0.
    const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
    cleanup.add('close raw connection', () => conn.close());
    const listed = await conn.request('ListTransactions', 0, { stateFilters: [], producerIdFilters: [] });
    const ids = listed.transactionStates.map((s) => s.transactionalId).filter((id) => id.startsWith('wca-app-'));
    assert.equal(ids.length, 1, `one transactional id for the application: ${ids.join(', ')}`);
    const described = await conn.request('DescribeTransactions', 0, { transactionalIds: ids });
    const [txn] = described.transactionStates;
    st.diagnostic(`${txn!.transactionalId}: ${txn!.transactionState}, producer id ${txn!.producerId}, epoch ${txn!.producerEpoch}`);
    assert.ok(txn!.producerEpoch >= 1, 'the second application fenced the first');
  });

  await t.test('on Brook, the broker killed with SIGKILL mid-stream and restarted on the same data dir and port', async (st) => {
    const cleanup = new Cleanup();
    st.after(() => cleanup.run());
    const dir = tempDir('brook-streams-kill-');
    cleanup.add('remove the data dir', () => dir.remove());
    const args = (port: number): string[] => ['--port', String(port), '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '0', '--log-level', 'warn'];
    let broker: BrookProcess = await spawnBrook(args(0));
    cleanup.add('stop broker', () => broker.stop());
    const { bootstrap, port } = broker;
    await createTopics(bootstrap, 'wck-in', 'wck-out');
    await produceLines(bootstrap, 'wck-in', INPUT);

    const state = tempDir('brook-streams-state-');
    cleanup.add('remove the state dir', () => state.remove());
    const app = startWordCountApp({ bootstrap, applicationId: 'wck-app', input: 'wck-in', output: 'wck-out', guarantee: 'exactly_once_v2', stateDir: state.path });
    cleanup.add('stop the application', () => app.close(15_000));
    await app.waitFor(/^state RUNNING$/, 60_000);

    const atKill = await waitForOutputProgress(bootstrap, 'wck-out');
    const total = totalWords(EXPECTED);
    await broker.kill();
    st.diagnostic(`killed with the output's log end offsets at ${atKill} of ${total} records; application: ${app.lines.join(' | ')}`);
    assert.ok(atKill < BigInt(total), 'the application was mid-stream at the kill');
    await sleep(500);
    broker = await spawnBrook(args(port));

    const output = await readWordCounts(bootstrap, 'wck-out', PARTITIONS, EXPECTED, 90_000);
    st.diagnostic(`application after the restart: ${app.lines.join(' | ')}`);
    assertExact(output, 'Brook killed and restarted');
    assert.equal(await app.close(), 0, `the application closes cleanly: ${app.lines.join(' | ')}\n${app.stderr().slice(-2000)}`);
    const stderr = broker.stderr();
    assert.doesNotMatch(stderr, /level=error/, 'the restarted broker logged no error');
  });

  await t.test('on Kafka 4.4: the same exact counts as on Brook', async (st) => {
    const cleanup = new Cleanup();
    st.after(() => cleanup.run());
    const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '0', 'transaction.state.log.num.partitions': '1', 'offsets.topic.num.partitions': '1' } });
    // SIGKILL first: a controlled shutdown waits for the application's session, which is
    // of no interest here; stop() then removes the data dir.
    cleanup.add('stop kafka', async () => {
      await kafka.kill();
      await kafka.stop();
    });
    await createTopics(kafka.bootstrap, 'wc-in', 'wc-out');
    await produceLines(kafka.bootstrap, 'wc-in', INPUT);
    const { output, ms } = await runToCompletion(kafka.bootstrap, 'wc', cleanup);
    st.diagnostic(`complete in ${ms} ms from the application's start`);
    assertExact(output, 'Kafka 4.4');
    if (brookCounts) assert.deepEqual(finalCounts(output), brookCounts, 'the same final counts as on Brook');
  });
});
