/**
 * At-least-once under kill -9, on Brook's broker: the README's consumer killed three times
 * at random points while it works through 3,000 records, then run to the end. Every record
 * must have been finished at least once: the consumer may read a record again after a kill
 * (it was not committed), but never skip one (committed before the application finished
 * with it). The same scenario runs against Apache Kafka in the interop suite.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { runKillRestart } from '../support/kill-restart.js';

test('kill -9 three times while the README consumer works: every record is processed at least once', { timeout: 180_000 }, async () => {
  const broker = await startBrook({ groupMinSessionTimeoutMs: 500 });
  try {
    const result = await runKillRestart(broker.bootstrap);
    assert.deepEqual(result.missing, [], `records never processed (seed ${result.seed}, killed after ${result.killedAt.join(', ')} processed lines)`);
  } finally {
    await broker.stop();
  }
});
