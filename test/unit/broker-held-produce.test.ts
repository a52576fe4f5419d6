/**
 * A Produce that holds its connection's later requests (transaction version 2: its partition
 * joins the transaction first, `RequestContext.holdLaterRequests`) stops the connection
 * reading while bytes wait behind it: a client that pipelines megabytes meanwhile keeps them
 * in its socket, not in the broker's memory. Once the hold ends every request is answered,
 * in order. The hold is made to last by holding the fsync of `__transaction_state` (the
 * storage's injectable file system), so nothing here depends on timing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaConnection } from '../../src/client/connection.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import { startBrook, tempDir } from '../support/brook.js';
import { RawClient } from '../support/clients/raw-client.js';
import { FaultyFileSystem } from '../support/storage/faulty-fs.js';

const MiB = 1024 * 1024;

async function until(what: string, condition: () => boolean, state: () => unknown = () => '', ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`still waiting for: ${what} ${JSON.stringify(state())}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('while a transactional Produce v12 holds the requests after it, its connection stops reading; 16 MiB of Produce requests pipelined behind it wait in the socket and are all answered in order once it is done', { timeout: 60_000 }, async (t) => {
  const dir = tempDir();
  const faults = new FaultyFileSystem();
  const broker = await startBrook({ dataDir: dir.path, fileSystem: faults, transactionStateLogNumPartitions: 1 });
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  const raw = new RawClient(broker.port);
  t.after(async () => {
    faults.clear();
    raw.socket.destroy();
    conn.close();
    await broker.stop();
    dir.remove();
  });
  for (const name of ['tx', 'bulk']) {
    await conn.request(Api.CreateTopics, { topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
  }
  await conn.request(Api.FindCoordinator, { keyType: 1, coordinatorKeys: ['tid'] }, { version: 4 });
  const init = await conn.request(Api.InitProducerId, { transactionalId: 'tid', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  assert.equal(init.errorCode, ErrorCode.NONE);

  const held = faults.inject({ op: ['fdatasync', 'fsync'], path: '__transaction_state', hold: true });
  const txnRecords = encodeRecordBatch({ records: [{ value: Buffer.from('t0') }], isTransactional: true, producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: 0 });
  raw.send(Api.Produce, 12, { transactionalId: 'tid', acks: -1, timeoutMs: 5000, topicData: [{ name: 'tx', partitionData: [{ index: 0, records: txnRecords }] }] });
  const value = Buffer.alloc(MiB - 200, 0x2a);
  for (let i = 0; i < 16; i++) {
    raw.send(Api.Produce, 9, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'bulk', partitionData: [{ index: 0, records: encodeRecordBatch({ records: [{ value }] }) }] }] });
  }
  const mine = () => broker.connectionInfo().find((c) => c.clientPort === raw.socket.localPort);
  await until('the implicit add waits for its fsync and the connection stops reading', () => held.hits > 0 && mine()?.readingPaused === true, () => [held.hits, mine()]);
  const info = mine()!;
  assert.ok(info.bytesRead <= 1 * MiB, `read ${info.bytesRead} of 16 MiB`);
  assert.ok(info.bufferedRequestBytes <= 256 * 1024, `held ${info.bufferedRequestBytes}`);
  assert.equal(info.throttled, 0, 'waiting for a request is not throttling');
  assert.ok(raw.socket.writableLength > 0, 'the client still holds what it could not send');

  held.remove();
  const produced = await raw.response<{ responses: { partitionResponses: { errorCode: number }[] }[] }>(Api.Produce, 12);
  assert.equal(produced.responses[0]!.partitionResponses[0]!.errorCode, ErrorCode.NONE);
  for (let i = 0; i < 16; i++) {
    const p = (await raw.response<{ responses: { partitionResponses: { errorCode: number; baseOffset: bigint }[] }[] }>(Api.Produce, 9)).responses[0]!.partitionResponses[0]!;
    assert.deepEqual([p.errorCode, p.baseOffset], [ErrorCode.NONE, BigInt(i)]);
  }
});
