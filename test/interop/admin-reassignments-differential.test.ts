/**
 * Differential conformance of AlterPartitionReassignments and ListPartitionReassignments: the
 * same raw requests to Apache Kafka 4.4 (one broker, KRaft combined mode) and to Brook, answers
 * compared after normalisation and their error messages word for word. On one broker the only
 * valid target is the replica a partition has (nothing changes, nothing is left in progress);
 * other targets fail Kafka's check of a manual assignment; a cancel finds nothing in progress.
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both } from '../support/differential/pair.js';
import type { AlterPartitionReassignmentsRequestData, ReassignableTopic } from '../../src/protocol/messages/alter-partition-reassignments.js';

function assertSame(c: { diffs: string[] }, what: string): void {
  assert.deepEqual(c.diffs, [], `${what}: Brook differs from Kafka:\n  ${c.diffs.join('\n  ')}`);
}

describe('Brook vs Apache Kafka 4.4: AlterPartitionReassignments, ListPartitionReassignments', { timeout: 180_000 }, () => {
  let pair: DiffPair;
  let nodeId: Both<number>;

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start({ 'num.partitions': '1' });
    nodeId = { kafka: pair.kafkaBroker.nodeId, brook: pair.brookBroker.config.nodeId };
    await pair.createTopic('moved', 5);
  });

  after(async () => {
    await pair?.stop();
  });

  it('AlterPartitionReassignments: a no-op to the replica a partition has; Kafka\'s refusals and messages otherwise', async () => {
    const topics = (self: number): ReassignableTopic[] => [
      {
        name: 'moved', partitions: [
          { partitionIndex: 0, replicas: [self] },
          { partitionIndex: 1, replicas: [99] },
          { partitionIndex: 2, replicas: [self, self] },
          { partitionIndex: 3, replicas: [] },
          { partitionIndex: 4, replicas: null },
          { partitionIndex: 7, replicas: [self] },
        ],
      },
      { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [self] }] },
    ];
    for (const version of [0, 1]) {
      const body = (self: number): AlterPartitionReassignmentsRequestData => ({ timeoutMs: 10_000, allowReplicationFactorChange: version === 1 ? false : true, topics: topics(self) });
      const c = await pair.compare('AlterPartitionReassignments', version, { kafka: body(nodeId.kafka), brook: body(nodeId.brook) });
      assertSame(c, `AlterPartitionReassignments v${version}`);
      const messages = (r: typeof c.raw.kafka): string[] => [`top: ${r.errorCode} ${r.errorMessage}`, ...r.responses.flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partitionIndex}: ${p.errorCode} ${p.errorMessage}`))];
      assert.deepEqual(messages(c.raw.brook), messages(c.raw.kafka), `AlterPartitionReassignments v${version}: messages`);
    }
  });

  it('ListPartitionReassignments: nothing in progress, for every topic or the ones named', async () => {
    for (const topics of [null, [{ name: 'moved', partitionIndexes: [0, 1, 9] }, { name: 'nope', partitionIndexes: [0] }]]) {
      const c = await pair.compare('ListPartitionReassignments', 0, { timeoutMs: 10_000, topics });
      assertSame(c, `ListPartitionReassignments ${JSON.stringify(topics)}`);
      assert.deepEqual([c.raw.brook.errorCode, c.raw.brook.errorMessage, c.raw.brook.topics], [c.raw.kafka.errorCode, c.raw.kafka.errorMessage, c.raw.kafka.topics]);
    }
  });
});
