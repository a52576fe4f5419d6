/**
 * The application under test, with Brook's clients: it publishes orders to a topic, and a
 * consumer group member reads them and totals the amounts by customer. Nothing here knows
 * about tests: it is given the bootstrap servers, as it would be in production.
 */
import { Consumer, Producer } from 'brook';

export async function publishOrders(bootstrapServers, topic, orders) {
  const producer = new Producer({ bootstrapServers });
  try {
    await Promise.all(orders.map((order) => producer.send({ topic, key: order.customer, value: JSON.stringify(order) })));
  } finally {
    await producer.close();
  }
}

/**
 * Reads `count` orders as a member of `groupId` and returns the total per customer; close()
 * commits what was read (auto-commit is on) and leaves the group.
 */
export async function totalsByCustomer(bootstrapServers, topic, groupId, count) {
  const consumer = new Consumer({ bootstrapServers, groupId, autoOffsetReset: 'earliest' });
  const totals = {};
  try {
    consumer.subscribe([topic]);
    for (let read = 0; read < count;) {
      for (const record of await consumer.poll({ timeoutMs: 1000 })) {
        const order = JSON.parse(record.value.toString());
        totals[order.customer] = (totals[order.customer] ?? 0) + order.amount;
        read++;
      }
    }
  } finally {
    await consumer.close();
  }
  return totals;
}
