/**
 * Configuring a streams group's topology (src/coordinator/streams/topology): numbers of
 * tasks, internal topics' partition counts, the topics to create and their order, statuses
 * and messages, and the StreamsGroupDescribe form. Every expected value below was captured
 * from Kafka 4.4's InternalTopicManager.configureTopics (test/support/java
 * StreamsTopologyOracle) on the same topology and topics; test/interop/streams-topology-java.test.ts
 * compares the same cases, and random ones, with Kafka live.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configureTopology } from '../../src/coordinator/streams/topology/configure.js';
import { describeTopology } from '../../src/coordinator/streams/topology/describe.js';
import { StreamsGroupStatus, StreamsInvalidTopologyError, type ConfiguredTopology, type StreamsTopology } from '../../src/coordinator/streams/topology/types.js';
import { topology } from '../support/streams-topology.js';

const T = { timeout: 10_000 };

function configure(t: StreamsTopology, topics: Record<string, number>): ConfiguredTopology {
  return configureTopology(t, (name) => (Object.hasOwn(topics, name) ? topics[name] : undefined));
}

function tasks(c: ConfiguredTopology): Record<string, number> {
  return Object.fromEntries([...c.subtopologies!].map(([id, s]) => [id, s.numberOfTasks]));
}

const wordCount = topology(1, [
  { id: '0', sources: ['words'], sinks: ['app-count-repartition'] },
  {
    id: '1',
    repartitionSources: [{ name: 'app-count-repartition', configs: { 'cleanup.policy': 'delete', 'segment.bytes': '52428800', 'retention.ms': '-1' } }],
    changelogs: [{ name: 'app-count-changelog', configs: { 'cleanup.policy': 'compact', 'message.timestamp.type': 'CreateTime' } }],
  },
]);

const join = (fixed?: number): StreamsTopology => topology(3, [
  { id: '0', sources: ['left'], sinks: ['app-left-repartition'] },
  { id: '1', sources: ['right'], sinks: ['app-right-repartition'] },
  {
    id: '2', sources: ['table'],
    repartitionSources: [{ name: 'app-left-repartition', ...(fixed === undefined ? {} : { partitions: fixed }) }, 'app-right-repartition'],
    changelogs: ['app-join-store-changelog', { name: 'app-table-changelog', partitions: 5, replicationFactor: 2 }],
    copartition: [['table', 'app-left-repartition', 'app-right-repartition']],
  },
]);

const many = topology(4, Array.from({ length: 6 }, (_, i) => ({
  id: String(i), sources: [`in-${i}`], changelogs: [`app-KSTREAM-AGGREGATE-STATE-STORE-000000000${i}-changelog`, `app-store-${i}-changelog`],
})));

describe('streams topology configuration (values captured from Kafka 4.4)', () => {
  it('word count: the repartition topic and the changelog get the source\'s partitions, and are to be created', T, () => {
    const c = configure(wordCount, { words: 6 });
    assert.deepEqual(tasks(c), { 0: 6, 1: 6 });
    assert.deepEqual(c.error, { status: StreamsGroupStatus.MISSING_INTERNAL_TOPICS, message: 'Internal topics are missing: app-count-changelog, app-count-repartition' });
    assert.deepEqual(c.internalTopicsToBeCreated.map((t) => [t.name, t.numberOfPartitions, t.replicationFactor, [...t.topicConfigs]]), [
      ['app-count-changelog', 6, null, [['cleanup.policy', 'compact'], ['message.timestamp.type', 'CreateTime']]],
      ['app-count-repartition', 6, null, [['cleanup.policy', 'delete'], ['segment.bytes', '52428800'], ['retention.ms', '-1']]],
    ]);
    const ready = configure(wordCount, { words: 6, 'app-count-repartition': 6, 'app-count-changelog': 6 });
    assert.equal(ready.error, null);
    assert.deepEqual(ready.internalTopicsToBeCreated, []);
  });

  it('an internal topic that exists with another partition count', T, () => {
    assert.deepEqual(configure(wordCount, { words: 6, 'app-count-repartition': 3 }), {
      topologyEpoch: 1, subtopologies: null, internalTopicsToBeCreated: [],
      error: { status: StreamsGroupStatus.INCORRECTLY_PARTITIONED_TOPICS, message: 'Existing topic app-count-repartition has different number of partitions: expected 6, found 3' },
    });
    // Several: Kafka reports the first in its HashSet of required topics.
    const several = configure(many, Object.fromEntries([
      ...Array.from({ length: 6 }, (_, i) => [`in-${i}`, 2]),
      ...Array.from({ length: 6 }, (_, i) => [`app-store-${i}-changelog`, 3]),
    ]));
    assert.equal(several.error?.message, 'Existing topic app-store-3-changelog has different number of partitions: expected 2, found 3');
  });

  it('a join: the copartition group gives the repartition topics the table\'s count', T, () => {
    const c = configure(join(), { left: 2, right: 8, table: 4 });
    assert.deepEqual(tasks(c), { 0: 2, 1: 8, 2: 4 });
    assert.deepEqual(c.internalTopicsToBeCreated.map((t) => [t.name, t.numberOfPartitions, t.replicationFactor]), [
      ['app-join-store-changelog', 4, null], ['app-left-repartition', 4, null], ['app-right-repartition', 4, null], ['app-table-changelog', 5, 2],
    ]);
    assert.equal(c.error?.message, 'Internal topics are missing: app-join-store-changelog, app-left-repartition, app-right-repartition and 1 additional topics');
    assert.deepEqual(describeTopology(c).subtopologies![2], {
      subtopologyId: '2', sourceTopics: ['table'], repartitionSinkTopics: [],
      stateChangelogTopics: [
        { name: 'app-join-store-changelog', partitions: 4, replicationFactor: 0, topicConfigs: [] },
        { name: 'app-table-changelog', partitions: 5, replicationFactor: 2, topicConfigs: [] },
      ],
      repartitionSourceTopics: [
        { name: 'app-left-repartition', partitions: 4, replicationFactor: 0, topicConfigs: [] },
        { name: 'app-right-repartition', partitions: 4, replicationFactor: 0, topicConfigs: [] },
      ],
    });
  });

  it('copartitioned topics with different counts', T, () => {
    assert.deepEqual(configure(join(6), { left: 2, right: 8, table: 4 }).error, {
      status: StreamsGroupStatus.INCORRECTLY_PARTITIONED_TOPICS,
      message: 'Number of partitions [6] of repartition topic [app-left-repartition] doesn\'t match number of partitions [4] of the source topic.',
    });
    const streams = topology(2, [{ id: '0', sources: ['orders', 'payments'], copartition: [['orders', 'payments']] }]);
    const c = configure(streams, { orders: 3, payments: 4 });
    assert.deepEqual(c.error, { status: StreamsGroupStatus.INCORRECTLY_PARTITIONED_TOPICS, message: 'Following topics do not have the same number of partitions: [{orders=3, payments=4}]' });
    assert.deepEqual(describeTopology(c), { epoch: 2, subtopologies: [] });
  });

  it('missing source topics', T, () => {
    assert.deepEqual(configure(many, { 'in-4': 1 }).error, {
      status: StreamsGroupStatus.MISSING_SOURCE_TOPICS, message: 'Source topics in-0, in-1, in-2 and 2 additional topics are missing.',
    });
  });

  it('many missing internal topics, in Kafka\'s HashMap order', T, () => {
    const c = configure(many, { 'in-0': 1, 'in-1': 2, 'in-2': 3, 'in-3': 4, 'in-4': 5, 'in-5': 6 });
    assert.deepEqual(tasks(c), { 0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 6 });
    assert.equal(c.error?.message, 'Internal topics are missing: app-store-3-changelog, app-KSTREAM-AGGREGATE-STATE-STORE-0000000000-changelog, app-KSTREAM-AGGREGATE-STATE-STORE-0000000005-changelog and 9 additional topics');
    assert.deepEqual(c.internalTopicsToBeCreated.map((t) => t.name), [
      'app-store-3-changelog', 'app-KSTREAM-AGGREGATE-STATE-STORE-0000000000-changelog', 'app-KSTREAM-AGGREGATE-STATE-STORE-0000000005-changelog',
      'app-KSTREAM-AGGREGATE-STATE-STORE-0000000004-changelog', 'app-KSTREAM-AGGREGATE-STATE-STORE-0000000001-changelog', 'app-store-4-changelog',
      'app-KSTREAM-AGGREGATE-STATE-STORE-0000000003-changelog', 'app-store-1-changelog', 'app-store-0-changelog', 'app-store-2-changelog',
      'app-KSTREAM-AGGREGATE-STATE-STORE-0000000002-changelog', 'app-store-5-changelog',
    ]);
  });

  it('a repartition count follows Kafka\'s walk of the subtopologies (by hash of their ids)', T, () => {
    // Kafka walks a before b: r is known (8) when b computes s, so s gets 8, not small's 2.
    const c = configure(topology(0, [
      { id: 'b', repartitionSources: ['r'], sources: ['small'], sinks: ['s'] },
      { id: 'a', sources: ['big'], sinks: ['r'] },
      { id: 'c', repartitionSources: ['s'], changelogs: ['c-changelog'] },
    ]), { big: 8, small: 2 });
    assert.deepEqual(tasks(c), { a: 8, b: 8, c: 8 });
    assert.deepEqual(c.internalTopicsToBeCreated.map((t) => [t.name, t.numberOfPartitions]), [['r', 8], ['s', 8], ['c-changelog', 8]]);
    assert.equal(c.error?.message, 'Internal topics are missing: r, s, c-changelog');
  });

  it('topologies that cannot be configured', T, () => {
    const invalid = (t: StreamsTopology, topics: Record<string, number>, message: string): void => {
      assert.throws(() => configure(t, topics), (e: unknown) => e instanceof StreamsInvalidTopologyError && e.message === message);
    };
    // Kafka 4.4 ignores source regular expressions here (its heartbeat rejects them).
    invalid(topology(0, [{ id: '0', regex: ['in-.*'] }]), { 'in-1': 3 }, 'No source topics found for subtopology 0');
    invalid(topology(0, [{ id: '0', repartitionSources: ['x'], sinks: ['y'] }, { id: '1', repartitionSources: ['y'], sinks: ['x'] }]), {},
      'Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.');
    invalid(topology(0, [{ id: '0', sources: ['a'] }, { id: '1', repartitionSources: ['orphan'] }]), { a: 2 },
      'Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.');
  });
});
