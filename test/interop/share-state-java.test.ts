/**
 * The share coordinator's combination of state batches (src/coordinator/share-state/
 * state-batches.ts) against Apache Kafka 4.4's own PersisterStateBatchCombiner, through
 * test/support/java ShareStateOracle, on random states and updates: overlapping or not,
 * across the start offset or not, every delivery state and small delivery counts.
 *
 * Needs Java 17+ and Maven.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combineStateBatches, type StateBatch } from '../../src/coordinator/share-state/state-batches.js';
import { kafkaCombinedStateBatches, type KafkaCombineRequest, type KafkaStateBatch } from '../support/java-oracle.js';
import { seededRandom } from '../support/random-message.js';

const STATES = [0, 1, 2, 4];

function randomBatches(random: () => number, count: number, disjoint: boolean): KafkaStateBatch[] {
  const out: KafkaStateBatch[] = [];
  let at = Math.floor(random() * 10);
  for (let i = 0; i < count; i++) {
    const first = disjoint ? at + Math.floor(random() * 4) : Math.floor(random() * 60);
    const last = first + Math.floor(random() * 12);
    at = last + 1;
    out.push({ firstOffset: first, lastOffset: last, deliveryState: STATES[Math.floor(random() * STATES.length)]!, deliveryCount: Math.floor(random() * 4) });
  }
  return out;
}

const toBrook = (b: KafkaStateBatch): StateBatch => ({ ...b, firstOffset: BigInt(b.firstOffset), lastOffset: BigInt(b.lastOffset) });
const fromBrook = (b: StateBatch): KafkaStateBatch => ({ firstOffset: Number(b.firstOffset), lastOffset: Number(b.lastOffset), deliveryState: b.deliveryState, deliveryCount: b.deliveryCount });

test("combined state batches equal Kafka's on 3,000 random states and updates", { timeout: 120_000 }, async () => {
  const seed = Date.now() >>> 0;
  const random = seededRandom(seed);
  const requests: KafkaCombineRequest[] = Array.from({ length: 3_000 }, () => ({
    // A state so far is what an earlier combination left: sorted, without overlaps. An
    // update may hold anything.
    soFar: randomBatches(random, Math.floor(random() * 6), random() < 0.8),
    update: randomBatches(random, Math.floor(random() * 6), random() < 0.3),
    startOffset: random() < 0.2 ? -1 : Math.floor(random() * 50),
  }));
  const kafka = await kafkaCombinedStateBatches(requests);
  requests.forEach((req, i) => {
    const brook = combineStateBatches(req.soFar.map(toBrook), req.update.map(toBrook), BigInt(req.startOffset)).map(fromBrook);
    assert.deepEqual(brook, kafka[i], `seed ${seed}, request ${i}: ${JSON.stringify(req)}`);
  });
});
