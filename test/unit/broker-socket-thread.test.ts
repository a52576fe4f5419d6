/**
 * num.network.threads: with 1 (the default) the plaintext listeners' sockets live on the
 * socket thread, with 0 on the event loop. Either way a client sees the same broker: requests
 * pipelined and answered in order, a request larger than any one read, a fetch of it, the
 * connection's counters, its close. (The other broker tests run on the default, the thread.)
 * A thread that dies takes the broker down with it, rather than leaving it running deaf.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { decodeRecordBatch, encodeRecordBatch } from '../../src/protocol/records/index.js';
import { startBrook } from '../support/brook.js';
import { seededBytes } from '../support/clients/raw-socket.js';

/** The TCP listeners this thread holds: the broker's, when its sockets are here. */
function tcpServersHere(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
}

async function until(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

for (const threads of [0, 1]) {
  test(`num.network.threads=${threads}: pipelined requests in order, three 900 KB produces and their fetches, counters and close`, { timeout: 30_000 }, async (t) => {
    await until('the listeners of earlier tests are gone', () => tcpServersHere() === 0);
    const broker = await startBrook({ numNetworkThreads: threads });
    t.after(() => broker.stop());
    assert.equal(tcpServersHere(), threads === 0 ? 1 : 0, 'the listener is on this thread only without the socket thread');
    const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'thread-test' });

    const created = await conn.request(Api.CreateTopics, { topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
    // Three requests of 900 KB each (max.message.bytes is 1 MiB), each more than one read, pipelined with 200 more.
    const values = [1, 2, 3].map((seed) => seededBytes(seed, 900 * 1024));
    const answers = await Promise.all([
      ...values.map((value) => conn.request(Api.Produce, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 't', partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value }] }) }] }] })),
      ...Array.from({ length: 200 }, () => conn.request(Api.ApiVersions, { clientSoftwareName: 'test', clientSoftwareVersion: '1' })),
    ]);
    assert.deepEqual(answers.slice(0, 3).map((a) => {
      const p = (a as { responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] }).responses[0]!.partitionResponses[0]!;
      return [p.errorCode, p.baseOffset];
    }), [[0, 0n], [0, 1n], [0, 2n]]);
    assert.ok(answers.slice(3).every((v) => (v as { errorCode: number }).errorCode === ErrorCode.NONE));

    for (const [offset, value] of values.entries()) {
      const fetched = await conn.request(Api.Fetch, {
        replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 1, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
        topics: [{ topic: 't', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: BigInt(offset), logStartOffset: -1n, partitionMaxBytes: 1 }] }],
        forgottenTopicsData: [], rackId: '',
      }, { version: 12 });
      const batch = decodeRecordBatch(fetched.responses[0]!.partitions[0]!.records!);
      assert.ok(Buffer.from(batch.records[0]!.value!).equals(value), `the value fetched at ${offset} is the one produced`);
    }

    const [info] = broker.connectionInfo();
    assert.ok(info!.bytesRead > 3 * 900 * 1024, `bytes read: ${info!.bytesRead}`);
    assert.equal(info!.inFlight, 0);
    await until('the kernel took every response', () => broker.connectionInfo()[0]!.unwrittenBytes === 0);

    conn.close();
    await until('the broker saw the connection close', () => broker.stats.connections.open === 0);
  });
}

test('a socket thread that dies stops the broker (failed resolves), which frees its data directory', { timeout: 30_000 }, async (t) => {
  await until('the listeners of earlier tests are gone', () => tcpServersHere() === 0);
  const dir = mkdtempSync(join(tmpdir(), 'brook-socket-thread-'));
  const cleanups: (() => unknown)[] = [];
  // Newest first, the directory last.
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const broker = await startBrook({ numNetworkThreads: 1, dataDir: dir });
  cleanups.push(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'thread-test' });
  const created = await conn.request(Api.CreateTopics, { topics: [{ name: 'kept', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);

  // As if the thread crashed: ended without the broker's stop.
  const thread = (broker as unknown as { socketThread: { worker: { terminate(): Promise<number> } } }).socketThread;
  await thread.worker.terminate();
  const err = await broker.failed;
  assert.match(err.message, /socket thread exited/);
  await until('the client sees its connection closed', () => conn.closed);
  await assert.rejects(KafkaConnection.connect({ host: '127.0.0.1', port: broker.port, clientId: 'thread-test', connectTimeoutMs: 2000 }), 'nothing listens any more');

  // Stopped for good: the data directory is free for the next broker, with what was written.
  const next = await startBrook({ numNetworkThreads: 1, dataDir: dir });
  cleanups.push(() => next.stop());
  const again = await KafkaConnection.connect({ host: '127.0.0.1', port: next.port, clientId: 'thread-test' });
  cleanups.push(() => again.close());
  const metadata = await again.request(Api.Metadata, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.ok(metadata.topics.some((topic) => topic.name === 'kept'));
});
