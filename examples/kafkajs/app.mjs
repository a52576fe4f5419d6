// A KafkaJS application, written against KafkaJS 2.2's documented API (its README's getting
// started: a producer, a consumer with eachMessage, and an admin client). To run it on Brook's
// client, change the import below to 'brook/kafkajs' and nothing else.
//
//   BROKERS=127.0.0.1:9092 node examples/kafkajs/app.mjs
import { Kafka, logLevel, CompressionTypes } from 'kafkajs';

const brokers = (process.env.BROKERS ?? '127.0.0.1:9092').split(',');
const topic = process.env.TOPIC ?? 'test-topic';
const groupId = process.env.GROUP ?? 'test-group';
const count = Number(process.env.COUNT ?? 10);

const kafka = new Kafka({ clientId: 'my-app', brokers, logLevel: logLevel.ERROR });

const admin = kafka.admin();
await admin.connect();
await admin.createTopics({ topics: [{ topic, numPartitions: 3 }] });

const producer = kafka.producer();
await producer.connect();
for (let i = 0; i < count; i += 5) {
  await producer.send({
    topic,
    compression: CompressionTypes.GZIP,
    messages: Array.from({ length: Math.min(5, count - i) }, (_, j) => ({ key: `key-${i + j}`, value: `Hello KafkaJS user! #${i + j}`, headers: { 'correlation-id': `c-${i + j}` } })),
  });
}

const consumer = kafka.consumer({ groupId });
await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });

const received = [];
await new Promise((resolve, reject) => {
  consumer.on(consumer.events.CRASH, (e) => reject(e.payload.error));
  consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      received.push({ topic, partition, offset: message.offset, key: message.key.toString(), value: message.value.toString(), header: message.headers['correlation-id'].toString() });
      if (received.length === count) resolve();
    },
  }).catch(reject);
});

await consumer.disconnect();
const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
await producer.disconnect();
await admin.disconnect();

received.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
console.log(JSON.stringify({ received, committed: offsets[0].partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset) }));
