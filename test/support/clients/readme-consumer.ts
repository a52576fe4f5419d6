/**
 * The README's consumer as a program, for the kill -9 test: subscribe, `for await` over the
 * records with auto-commit on, each record "processed" for a few milliseconds and then
 * appended to a file (one value per line). The append is a write(2) that has returned, so
 * it survives the process being killed; a record in that file was finished.
 *
 * Usage: node readme-consumer.js BOOTSTRAP GROUP TOPIC PROCESSED_FILE [classic|consumer]
 * (the group protocol; classic by default).
 */
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Consumer } from '../../../src/index.js';

const [bootstrapServers, groupId, topic, processedFile, groupProtocol = 'classic'] = process.argv.slice(2);
if (!bootstrapServers || !groupId || !topic || !processedFile || (groupProtocol !== 'classic' && groupProtocol !== 'consumer')) {
  throw new Error('usage: readme-consumer BOOTSTRAP GROUP TOPIC PROCESSED_FILE [classic|consumer]');
}

const consumer = new Consumer({
  bootstrapServers, groupId, autoOffsetReset: 'earliest',
  // Commits often, so a kill lands between a commit and the end of the batch it was made in.
  autoCommitIntervalMs: 100,
  // A killed member leaves the group quickly, so the restarted one gets its partitions back
  // soon: with the consumer protocol the broker sets the session timeout and heartbeat interval.
  ...(groupProtocol === 'consumer' ? { groupProtocol } : { sessionTimeoutMs: 1_000, heartbeatIntervalMs: 100 }),
});
consumer.subscribe([topic]);
process.stdout.write('subscribed\n');
for await (const record of consumer) {
  await sleep(2); // the application's work on the record
  appendFileSync(processedFile, `${record.value!.toString()}\n`);
}
