/**
 * At-least-once under kill -9, on Apache Kafka 4.4.0: the README's consumer killed three
 * times at random points while it works through 3,000 records, then run to the end; no
 * record may go unprocessed. The same scenario as test/unit/consumer-kill-restart.test.ts,
 * with Kafka's group coordinator deciding membership and storing the commits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startKafka } from '../support/kafka/kafka-broker.js';
import { runKillRestart } from '../support/kill-restart.js';

test('Apache Kafka 4.4.0: kill -9 three times while the README consumer works, every record is processed at least once', { timeout: 240_000 }, async () => {
  // The consumer's 1 s session timeout is below Kafka's default minimum (6 s).
  const kafka = await startKafka({ config: { 'group.min.session.timeout.ms': '500', 'group.initial.rebalance.delay.ms': '0' } });
  try {
    const result = await runKillRestart(kafka.bootstrap);
    assert.deepEqual(result.missing, [], `records never processed (seed ${result.seed}, killed after ${result.killedAt.join(', ')} processed lines)`);
  } finally {
    await kafka.stop();
  }
});
