/**
 * A KafkaJS consumer group member in a process of its own, for tests that kill it (SIGKILL:
 * it neither leaves the group nor commits). Run as
 * `node kafkajs-group-member.js BOOTSTRAP TOPIC GROUP SESSION_TIMEOUT_MS`; prints one JSON
 * line per event on stdout: `{"event":"joined","memberId":...}` at each group join.
 */
import { kafkaJs } from './kafkajs.js';

const [bootstrap, topic, groupId, sessionTimeout] = process.argv.slice(2);
if (bootstrap === undefined || topic === undefined || groupId === undefined || sessionTimeout === undefined) {
  process.stderr.write('usage: kafkajs-group-member BOOTSTRAP TOPIC GROUP SESSION_TIMEOUT_MS\n');
  process.exit(2);
}
const consumer = kafkaJs(bootstrap, 'brook-test-kafkajs-member').consumer({
  groupId, sessionTimeout: Number(sessionTimeout), heartbeatInterval: 500, maxWaitTimeInMs: 100,
});
consumer.on(consumer.events.GROUP_JOIN, (e) => {
  process.stdout.write(`${JSON.stringify({ event: 'joined', memberId: e.payload.memberId })}\n`);
});
await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });
await consumer.run({ eachMessage: async () => undefined });
