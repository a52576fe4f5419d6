/**
 * read_committed against Brook with a third-party client as the oracle: a topic holds
 * transactional batches with COMMIT and ABORT markers (appended as the transaction
 * coordinator would: markers with origin 'coordinator'), interleaved producers and plain
 * records, and one transaction left open. KafkaJS's consumer (read_committed by default;
 * it filters aborted batches with the Fetch response's aborted transactions, as Kafka's
 * consumer does) must see exactly the committed and plain records below the last stable
 * offset, then the rest once the open transaction commits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Consumer } from 'kafkajs';
import { ControlRecordType, encodeControlRecordKey, encodeEndTxnMarker, encodeRecordBatch } from '../../src/protocol/records/index.js';
import { startBrook } from '../support/brook.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';

const TOPIC = 'txn-read-committed';

function data(values: string[], producerId = -1n, sequence = -1): Buffer {
  const now = Date.now();
  return encodeRecordBatch({
    records: values.map((v) => ({ value: Buffer.from(v), timestamp: now })),
    producerId, producerEpoch: producerId >= 0n ? 0 : -1, baseSequence: sequence, isTransactional: producerId >= 0n,
  });
}

function marker(producerId: bigint, commit: boolean): Buffer {
  return encodeRecordBatch({
    records: [{ key: encodeControlRecordKey(commit ? ControlRecordType.Commit : ControlRecordType.Abort), value: encodeEndTxnMarker(0), timestamp: Date.now() }],
    producerId, producerEpoch: 0, baseSequence: -1, isTransactional: true, isControl: true,
  });
}

test('KafkaJS read_committed sees exactly the committed records of a Brook topic', { timeout: 60_000 }, async () => {
  const cleanup = new Cleanup();
  try {
    const broker = await startBrook();
    cleanup.add('stop broker', () => broker.stop());
    broker.storage.createTopic(TOPIC, 1);
    const log = broker.storage.partition(TOPIC, 0)!;
    const client = { nowMs: Date.now() };
    const coordinator = { nowMs: Date.now(), origin: 'coordinator' as const };
    log.append(data(['c1', 'c2'], 1n, 0), client);
    log.append(data(['a1'], 2n, 0), client);
    log.append(marker(1n, true), coordinator);
    log.append(data(['p1']), client);
    log.append(data(['a2', 'a3'], 2n, 1), client);
    log.append(marker(2n, false), coordinator);
    log.append(data(['c3'], 3n, 0), client);
    log.append(data(['a4'], 4n, 0), client);
    log.append(data(['c4'], 3n, 1), client);
    log.append(marker(4n, false), coordinator);
    log.append(marker(3n, true), coordinator);
    log.append(data(['o1'], 5n, 0), client); // left open for now
    log.append(data(['p2']), client); // behind the open transaction: not yet stable
    assert.equal(log.lastStableOffset, 13n, 'the open transaction starts at offset 13');

    const kafka = kafkaJs(broker.bootstrap);
    const consumer: Consumer = kafka.consumer({ groupId: 'txn-reader', maxWaitTimeInMs: 100 });
    cleanup.add('consumer', () => consumer.disconnect());
    const seen: { offset: number; value: string }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push({ offset: Number(message.offset), value: message.value!.toString() }) });
    await until('the committed records read', 20_000, async () => (seen.length >= 5 ? true : undefined));
    await new Promise((r) => setTimeout(r, 500)); // anything past the LSO would show up now
    assert.deepEqual(seen.map((s) => s.value), ['c1', 'c2', 'p1', 'c3', 'c4']);
    assert.deepEqual(seen.map((s) => s.offset), [0, 1, 4, 8, 10]);

    log.append(marker(5n, true), { nowMs: Date.now(), origin: 'coordinator' });
    await until('the rest once the transaction commits', 20_000, async () => (seen.length >= 7 ? true : undefined));
    assert.deepEqual(seen.slice(5).map((s) => s.value), ['o1', 'p2']);
  } finally {
    await cleanup.run();
  }
});
