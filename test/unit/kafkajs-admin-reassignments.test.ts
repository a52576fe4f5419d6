/**
 * admin.alterPartitionReassignments and admin.listPartitionReassignments against KafkaJS 2.2.4's
 * on the same (single-node) broker: a reassignment to the one replica there is succeeds and
 * changes nothing; one naming a broker that does not exist, or an unknown topic or partition,
 * fails with the same KafkaJSAggregateError of per-partition errors; nothing is ever listed as
 * in progress; KafkaJS's argument checks throw the same errors. Brook's own admin client
 * cancels (replicas null) with NO_REASSIGNMENT_IN_PROGRESS, as Kafka's controller answers when
 * nothing is in progress. KafkaJS's per-partition errors are KafkaJSProtocolErrors, and so are Brook's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as real from 'kafkajs';
import { Kafka, KafkaJSProtocolError, logLevel } from '../../src/kafkajs/index.js';
import { Admin } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

// KafkaJS spreads its error classes into its exports, which Node's ESM view of it does not see.
const { KafkaJSProtocolError: TheirProtocolError } = createRequire(import.meta.url)('kafkajs') as typeof real;

const T = { timeout: 60_000 };

/**
 * What the tests compare of an error: its class name, KafkaJS's type and code, whether it is
 * a KafkaJSProtocolError of the library that threw it (applications test `instanceof`), and
 * its errors' (an aggregate).
 */
function described(e: unknown, protocolError: abstract new (...args: never[]) => unknown): unknown {
  const err = e as { name: string; type?: string; code?: number; retriable?: boolean; topic?: string; partition?: number; message: string; errors?: unknown[] };
  if (err.errors) return { name: err.name, message: err.message, errors: err.errors.map((x) => described(x, protocolError)) };
  if (err.type !== undefined) return { name: err.name, type: err.type, code: err.code, retriable: err.retriable, topic: err.topic, partition: err.partition, isProtocolError: e instanceof protocolError };
  return { name: err.name, message: err.message };
}

test('partition reassignments answer as KafkaJS 2.2.4 does on the same broker', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING, retry: { retries: 0 } }).admin();
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
  for (const a of [theirs, ours]) {
    await a.connect();
    cleanup.add('admin', () => a.disconnect());
  }
  await theirs.createTopics({ topics: [{ topic: 'moved', numPartitions: 2 }] });
  const node = (await theirs.describeCluster()).brokers[0]!.nodeId;

  const both = async (call: (a: typeof theirs) => Promise<unknown>): Promise<{ theirs: unknown; ours: unknown }> => {
    const settle = (p: Promise<unknown>, protocolError: abstract new (...args: never[]) => unknown) => p.then((value) => ({ value }), (e: unknown) => ({ error: described(e, protocolError) }));
    return { theirs: await settle(call(theirs), TheirProtocolError), ours: await settle(call(ours as unknown as typeof theirs), KafkaJSProtocolError) };
  };
  const same = async (what: string, call: (a: typeof theirs) => Promise<unknown>, expected?: unknown): Promise<void> => {
    const r = await both(call);
    assert.deepEqual(r.ours, r.theirs, what);
    if (expected !== undefined) assert.deepEqual(r.theirs, expected, what);
  };

  await same('to the replica it has', (a) => a.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [node] }, { partition: 1, replicas: [node] }] }] }), { value: undefined });
  await same('to a broker that does not exist', (a) => a.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [node] }, { partition: 1, replicas: [node + 7] }] }] }), {
    error: { name: 'KafkaJSAggregateError', message: 'Errors altering partition reassignments', errors: [{ name: 'KafkaJSAlterPartitionReassignmentsError', type: 'INVALID_REPLICA_ASSIGNMENT', code: 39, retriable: false, topic: 'moved', partition: 1, isProtocolError: true }] },
  });
  await same('the replica twice, and an empty list', (a) => a.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [node, node] }, { partition: 1, replicas: [] }] }] }));
  await same('an unknown topic and partition', (a) => a.alterPartitionReassignments({ topics: [{ topic: 'nope', partitionAssignment: [{ partition: 0, replicas: [node] }] }, { topic: 'moved', partitionAssignment: [{ partition: 5, replicas: [node] }] }] }));
  await same('arguments KafkaJS refuses', (a) => a.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [-1] }] }] }));
  await same('a topic twice', (a) => a.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [] }, { topic: 'moved', partitionAssignment: [] }] }));

  await same('nothing in progress', (a) => a.listPartitionReassignments({}), { value: { topics: [] } });
  await same('nothing in progress for these', (a) => a.listPartitionReassignments({ topics: [{ topic: 'moved', partitions: [0, 1] }, { topic: 'nope', partitions: [0] }] }), { value: { topics: [] } });
  await same('partitions KafkaJS refuses', (a) => a.listPartitionReassignments({ topics: [{ topic: 'moved', partitions: [-1] }] }));

  // Cancelling (KafkaJS cannot send it): nothing to cancel.
  const brook = await Admin.connect({ bootstrapServers: broker.bootstrap });
  cleanup.add('brook admin', () => brook.close());
  assert.deepEqual(await brook.alterPartitionReassignments([{ topic: 'moved', partition: 0, replicas: null }]), [
    { topic: 'moved', partition: 0, error: 'NO_REASSIGNMENT_IN_PROGRESS', errorMessage: null },
  ]);
});
