/**
 * The same application written with KafkaJS, an application's usual client: Brook's broker
 * serves it unchanged.
 */
import { Kafka, logLevel } from 'kafkajs';

function kafka(bootstrapServers) {
  return new Kafka({ clientId: 'orders', brokers: bootstrapServers.split(','), logLevel: logLevel.NOTHING });
}

export async function publishOrders(bootstrapServers, topic, orders) {
  const producer = kafka(bootstrapServers).producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages: orders.map((order) => ({ key: order.customer, value: JSON.stringify(order) })) });
  } finally {
    await producer.disconnect();
  }
}

/** Reads `count` orders as a member of `groupId` (KafkaJS commits as it goes), returns the total per customer. */
export async function totalsByCustomer(bootstrapServers, topic, groupId, count) {
  const consumer = kafka(bootstrapServers).consumer({ groupId });
  await consumer.connect();
  const totals = {};
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise((resolve, reject) => {
      let read = 0;
      consumer.run({
        eachMessage: async ({ message }) => {
          const order = JSON.parse(message.value.toString());
          totals[order.customer] = (totals[order.customer] ?? 0) + order.amount;
          if (++read === count) resolve();
        },
      }).catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return totals;
}
