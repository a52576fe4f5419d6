/**
 * A KafkaJS group member as a process of its own, so that a test can kill it with SIGKILL
 * (no LeaveGroup: the broker only learns of it when its session times out).
 *
 * Usage: node kafkajs-member.js BOOTSTRAP GROUP TOPIC CLIENT_ID SESSION_TIMEOUT_MS
 * Prints one JSON line per join: {"event":"joined","memberId":"...","leader":bool,"assignment":{...}}.
 */
import { kafkaJs } from '../clients/kafkajs.js';

const [bootstrap, groupId, topic, clientId, sessionTimeout] = process.argv.slice(2);
if (bootstrap === undefined || groupId === undefined || topic === undefined || clientId === undefined) {
  process.stderr.write('usage: kafkajs-member BOOTSTRAP GROUP TOPIC CLIENT_ID [SESSION_TIMEOUT_MS]\n');
  process.exit(2);
}
const consumer = kafkaJs(bootstrap, clientId, 10).consumer({
  groupId, sessionTimeout: Number(sessionTimeout ?? 6000), heartbeatInterval: 500, rebalanceTimeout: 10_000, maxWaitTimeInMs: 200,
});
consumer.on(consumer.events.GROUP_JOIN, (e) => {
  process.stdout.write(`${JSON.stringify({ event: 'joined', memberId: e.payload.memberId, leader: e.payload.isLeader, assignment: e.payload.memberAssignment })}\n`);
});
consumer.on(consumer.events.CRASH, (e) => process.stderr.write(`crash: ${String(e.payload.error)}\n`));
await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });
await consumer.run({ eachMessage: async () => undefined });
const stop = (): void => void consumer.disconnect().finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
