/**
 * Kafka 4.4.0's transactional producer and `kafka-transactions` tool against Brook's
 * transaction coordinator (test/support/java TransactionalFlow): initTransactions, a
 * committed and an aborted transaction, an open one that `kafka-transactions describe` and
 * `list` show Ongoing, a second producer with the same transactional id fencing the first
 * (whose commit then fails with ProducerFencedException), and the second's commit. The
 * partition then holds, read by a raw Fetch, a COMMIT or ABORT control batch after each
 * transaction's records, with the producer epoch of its end (bumped by the fence).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { javaCommand } from '../support/java-oracle.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { Admin } from '../../src/index.js';
import { decodeControlRecordKey, decodeEndTxnMarker, decodeRecordBatch, iterateBatches } from '../../src/protocol/records/index.js';

function kafkaTransactions(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runProcess('java', ['-Xshare:auto', '-cp', kafkaClasspath(), 'org.apache.kafka.tools.TransactionsCommand', ...args], { timeoutMs: 60_000 });
}

test('Kafka 4.4 transactional producer: commit, abort, fencing, kafka-transactions describe/list, markers in the log', { timeout: 300_000 }, async (t) => {
  assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  kafkaClasspath();
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('close admin', () => admin.close());
  const topic = 'txn-java';
  const transactionalId = 'txn-java-id';
  await admin.createTopic({ name: topic, partitions: 1 });

  const [cmd, ...args] = javaCommand('brook.conformance.TransactionalFlow');
  const child = spawn(cmd!, [...args, broker.bootstrap, topic, transactionalId], { stdio: ['pipe', 'pipe', 'pipe'] });
  cleanup.add('kill java', () => void child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const lines: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (line: string): Promise<void> => {
    while (!lines.includes(line)) {
      const more = new Promise<void>((resolve) => waiters.push(resolve));
      const code = await Promise.race([more.then(() => undefined), exited]);
      if (code !== undefined && !lines.includes(line)) assert.fail(`TransactionalFlow exited ${code} before "${line}": ${lines.join(' | ')}\n${stderr.slice(-3000)}`);
    }
  };
  await waitFor('ongoing');

  const described = await kafkaTransactions(['--bootstrap-server', broker.bootstrap, 'describe', '--transactional-id', transactionalId]);
  t.diagnostic(`kafka-transactions describe: ${described.stdout.trim()}`);
  assert.equal(described.code, 0, described.stderr);
  const [header, row] = described.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}|\t/));
  const field = (name: string): string | undefined => row?.[header!.indexOf(name)];
  assert.equal(field('TransactionalId'), transactionalId);
  assert.equal(field('TransactionState'), 'Ongoing');
  assert.equal(field('TransactionTimeoutMs'), '60000');
  assert.equal(field('TopicPartitions'), `${topic}-0`);
  const listed = await kafkaTransactions(['--bootstrap-server', broker.bootstrap, 'list']);
  t.diagnostic(`kafka-transactions list: ${listed.stdout.trim()}`);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(`${transactionalId}\\s+${broker.config.nodeId}\\s+\\d+\\s+Ongoing`));

  child.stdin.write('go\n');
  assert.equal(await exited, 0, `${lines.join(' | ')}\n${stderr.slice(-3000)}`);
  assert.deepEqual(lines, ['initialized', 'committed', 'aborted', 'ongoing', 'second initialized', 'fenced ProducerFencedException', 'second committed']);

  const done = await kafkaTransactions(['--bootstrap-server', broker.bootstrap, 'describe', '--transactional-id', transactionalId]);
  assert.match(done.stdout, /CompleteCommit/);

  // The log: data batches, each transaction ended by its marker.
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  cleanup.add('close raw connection', () => conn.close());
  const fetched = await conn.request('Fetch', 4, {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: '', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  });
  const records = fetched.responses[0]!.partitions[0]!.records as Buffer;
  const log: string[] = [];
  for (const view of iterateBatches(records)) {
    const { header: h, records: rs } = decodeRecordBatch(view.buffer);
    assert.ok(h.isTransactional, `batch at ${h.baseOffset} is transactional`);
    if (h.isControl) {
      const key = decodeControlRecordKey(rs[0]!.key);
      assert.equal(decodeEndTxnMarker(rs[0]!.value).coordinatorEpoch, 0);
      log.push(`${h.baseOffset} ${key.type === 1 ? 'COMMIT' : 'ABORT'} epoch ${h.producerEpoch}`);
    } else {
      for (const r of rs) log.push(`${r.offset} ${r.value!.toString()} epoch ${h.producerEpoch}`);
    }
  }
  t.diagnostic(log.join('\n'));
  // The first producer got epoch 0; the fence aborts its transaction under epoch 1; the second producer then gets epoch 2.
  assert.deepEqual(log, [
    '0 committed-0 epoch 0', '1 committed-1 epoch 0', '2 committed-2 epoch 0', '3 COMMIT epoch 0',
    '4 aborted-0 epoch 0', '5 aborted-1 epoch 0', '6 ABORT epoch 0',
    '7 zombie-0 epoch 0', '8 ABORT epoch 1',
    '9 second-0 epoch 2', '10 COMMIT epoch 2',
  ]);
});
