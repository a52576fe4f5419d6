/**
 * A produced batch's header max timestamp is not trusted (Kafka's LogValidator recomputes it
 * from the records): KafkaJS 2.2 writes it from explicitly given timestamps only, so a batch
 * of a record stamped an hour ago and one stamped "now" by default arrives claiming the old
 * time. ListOffsets by timestamp must still find the newer record, by Kafka's documented rule:
 * the earliest offset whose timestamp is at or after the target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompressionTypes } from 'kafkajs';
import { startBrook } from '../support/brook.js';
import { kafkaJs, createTopicWithKafkaJs } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';

const HOUR = 3_600_000;

for (const [name, compression] of [['uncompressed', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]] as const) {
  test(`KafkaJS ${name} batch [old timestamp, default timestamp]: fetchTopicOffsetsByTimestamp between them finds the second record`, { timeout: 20_000 }, async (t) => {
    const cleanup = new Cleanup();
    t.after(() => cleanup.run());
    const broker = await startBrook();
    cleanup.add('stop broker', () => broker.stop());
    const topic = `max-ts-${name}`;
    await createTopicWithKafkaJs(broker.bootstrap, topic, 1);
    const kafka = kafkaJs(broker.bootstrap);
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    cleanup.add('disconnect producer', () => producer.disconnect());
    const admin = kafka.admin();
    await admin.connect();
    cleanup.add('disconnect admin', () => admin.disconnect());

    const old = Date.now() - HOUR;
    // One send to one partition: one batch, offsets 0 and 1.
    await producer.send({ topic, compression, messages: [{ value: 'old', timestamp: String(old) }, { value: 'now' }] });
    const target = old + HOUR / 2;
    assert.deepEqual(await admin.fetchTopicOffsetsByTimestamp(topic, target), [{ partition: 0, offset: '1' }]);
    assert.deepEqual(await admin.fetchTopicOffsetsByTimestamp(topic, old), [{ partition: 0, offset: '0' }]);
    // After every record: the log end offset (Kafka answers -1, which KafkaJS maps to it).
    assert.deepEqual(await admin.fetchTopicOffsetsByTimestamp(topic, Date.now() + HOUR), [{ partition: 0, offset: '2' }]);
  });
}
