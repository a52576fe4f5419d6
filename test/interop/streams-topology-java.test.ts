/**
 * Brook's configuration of a streams group's topology (src/coordinator/streams/topology)
 * against Kafka 4.4's own InternalTopicManager.configureTopics, run by test/support/java
 * StreamsTopologyOracle on the same topology records and topics: hand-written topologies
 * (word count, joins with copartition groups, missing source topics, wrongly partitioned
 * copartitioned sources, missing internal topics, existing internal topics with wrong
 * counts, regex sources, unresolvable repartition topics) and 1500 random ones. Numbers of tasks,
 * internal topics' partition counts and configs, the topics to create (in Kafka's order),
 * status and message, and the StreamsGroupDescribe topology must be equal.
 *
 * Needs Java 17+ and Maven.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamsTopology } from '../../src/coordinator/streams/topology/types.js';
import { kafkaConfiguredTopologies } from '../support/java-oracle.js';
import { brookConfiguredJson, topology, topologyJson, type SubtopologySpec, type TopicSpec } from '../support/streams-topology.js';

const T = { timeout: 300_000 };

interface Case {
  readonly name: string;
  readonly topology: StreamsTopology;
  readonly topics: Record<string, number>;
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
    id: '2',
    sources: ['table'],
    repartitionSources: [
      { name: 'app-left-repartition', ...(fixed === undefined ? {} : { partitions: fixed }) },
      'app-right-repartition',
    ],
    changelogs: ['app-join-store-changelog', { name: 'app-table-changelog', partitions: 5, replicationFactor: 2 }],
    copartition: [['table', 'app-left-repartition', 'app-right-repartition']],
  },
]);

const streamStreamJoin = topology(2, [
  {
    id: '0', sources: ['orders', 'payments'],
    changelogs: ['app-join-this-store-changelog', 'app-join-other-store-changelog'],
    copartition: [['orders', 'payments']],
  },
]);

const manyInternal = topology(4, Array.from({ length: 6 }, (_, i): SubtopologySpec => ({
  id: String(i),
  sources: [`in-${i}`],
  changelogs: [`app-KSTREAM-AGGREGATE-STATE-STORE-000000000${i}-changelog`, `app-store-${i}-changelog`],
})));

const handWritten: Case[] = [
  { name: 'word count, nothing created yet', topology: wordCount, topics: { words: 6 } },
  { name: 'word count, ready', topology: wordCount, topics: { words: 6, 'app-count-repartition': 6, 'app-count-changelog': 6 } },
  { name: 'word count, repartition topic exists with another count', topology: wordCount, topics: { words: 6, 'app-count-repartition': 3 } },
  { name: 'word count, changelog exists with another count', topology: wordCount, topics: { words: 6, 'app-count-repartition': 6, 'app-count-changelog': 2 } },
  { name: 'word count, source missing', topology: wordCount, topics: {} },
  { name: 'join, copartitioned', topology: join(), topics: { left: 2, right: 8, table: 4 } },
  { name: 'join, fixed repartition count differs from the table', topology: join(6), topics: { left: 2, right: 8, table: 4 } },
  { name: 'join, fixed repartition count equals the table', topology: join(4), topics: { left: 2, right: 8, table: 4 } },
  { name: 'stream-stream join, sources not copartitioned', topology: streamStreamJoin, topics: { orders: 3, payments: 4 } },
  { name: 'stream-stream join, copartitioned', topology: streamStreamJoin, topics: { orders: 4, payments: 4 } },
  { name: 'many missing sources', topology: manyInternal, topics: { 'in-4': 1 } },
  { name: 'many missing internal topics', topology: manyInternal, topics: { 'in-0': 1, 'in-1': 2, 'in-2': 3, 'in-3': 4, 'in-4': 5, 'in-5': 6 } },
  {
    name: 'several internal topics with wrong counts',
    topology: manyInternal,
    topics: Object.fromEntries([
      ...Array.from({ length: 6 }, (_, i) => [`in-${i}`, 2]),
      ...Array.from({ length: 6 }, (_, i) => [`app-store-${i}-changelog`, 3]),
    ]),
  },
  { name: 'regex source only', topology: topology(0, [{ id: '0', regex: ['in-.*'], changelogs: ['app-c-changelog'] }]), topics: { 'in-1': 3 } },
  { name: 'regex beside a named source', topology: topology(0, [{ id: '0', sources: ['a'], regex: ['b.*'] }]), topics: { a: 2, b1: 5 } },
  { name: 'repartition source never a sink', topology: topology(0, [{ id: '0', sources: ['a'] }, { id: '1', repartitionSources: ['orphan'] }]), topics: { a: 2 } },
  {
    name: 'repartition loop',
    topology: topology(0, [
      { id: '0', repartitionSources: ['x'], sinks: ['y'] },
      { id: '1', repartitionSources: ['y'], sinks: ['x'] },
    ]),
    topics: {},
  },
  {
    name: 'a repartition count decided by the walk order of subtopologies',
    topology: topology(0, [
      { id: 'b', repartitionSources: ['r'], sources: ['small'], sinks: ['s'] },
      { id: 'a', sources: ['big'], sinks: ['r'] },
      { id: 'c', repartitionSources: ['s'], changelogs: ['c-changelog'] },
    ]),
    topics: { big: 8, small: 2 },
  },
  {
    name: 'repartition chain through three subtopologies',
    topology: topology(0, [
      { id: '2', repartitionSources: ['r2'], changelogs: ['c2'] },
      { id: '1', repartitionSources: ['r1'], sources: ['b'], sinks: ['r2'] },
      { id: '0', sources: ['a'], sinks: ['r1'] },
    ]),
    topics: { a: 7, b: 2 },
  },
];

/** A small deterministic PRNG (mulberry32), so a failure names its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONFIG_KEYS = ['cleanup.policy', 'retention.ms', 'segment.bytes', 'min.insync.replicas', 'message.timestamp.type', 'max.message.bytes'];

function randomCase(seed: number): Case {
  const random = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const count = 1 + Math.floor(random() * 6);
  const ids = Array.from({ length: count }, (_, i) => (random() < 0.5 ? String(i) : `sub-${i}-${Math.floor(random() * 100)}`));
  const externals = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) => `topic-${i}`);
  const topics: Record<string, number> = {};
  for (const t of externals) if (random() < 0.93) topics[t] = 1 + Math.floor(random() * 8);
  const specs = ids.map((id) => ({
    id,
    sources: externals.filter(() => random() < 0.3),
    // Kafka's topic configuration ignores patterns: a subtopology with only one has no sources.
    regex: random() < 0.1 ? ['topic-.*'] : [],
    sinks: [] as string[],
    repartitionSources: [] as TopicSpec[],
    changelogs: [] as TopicSpec[],
    copartition: [] as string[][],
  }));
  const internalTopic = (name: string): TopicSpec => {
    const configs: Record<string, string> = {};
    for (const key of CONFIG_KEYS) if (random() < 0.25) configs[key] = String(Math.floor(random() * 1000));
    return {
      name,
      ...(random() < 0.2 ? { partitions: 1 + Math.floor(random() * 8) } : {}),
      ...(random() < 0.3 ? { replicationFactor: 1 + Math.floor(random() * 3) } : {}),
      configs,
    };
  };
  // Repartition topics: written by one subtopology, read by a later one (now and then an earlier one: loops).
  const repartitions = Math.floor(random() * 5);
  for (let r = 0; r < repartitions && count > 1; r++) {
    const name = `app-KSTREAM-REPARTITION-00000000${r}-repartition`;
    const writer = Math.floor(random() * count);
    let reader = random() < 0.9 ? writer + 1 + Math.floor(random() * (count - writer - 1)) : Math.floor(random() * count);
    if (reader >= count || reader === writer) reader = (writer + 1) % count;
    if (random() < 0.95) specs[writer]!.sinks.push(name);
    if (random() < 0.3 && writer + 1 < count) specs[(writer + 1) % count]!.sinks.push(name);
    specs[reader]!.repartitionSources.push(internalTopic(name));
  }
  for (const s of specs) {
    const changelogs = Math.floor(random() * 3);
    for (let c = 0; c < changelogs; c++) s.changelogs.push(internalTopic(`app-${s.id}-store-${c}-changelog`));
    if (s.sources.length === 0 && s.repartitionSources.length === 0 && random() < 0.9) s.sources.push(pick(externals));
    const joinable = [...s.sources, ...s.repartitionSources.map((t) => t.name)];
    if (joinable.length >= 2 && random() < 0.6) s.copartition.push(joinable.filter(() => random() < 0.7));
    if (joinable.length >= 2 && random() < 0.2) s.copartition.push(joinable.filter(() => random() < 0.5));
  }
  // Some internal topics exist already, with a count that may or may not be the one decided.
  for (const s of specs) {
    for (const t of [...s.repartitionSources, ...s.changelogs]) {
      if (random() < 0.3) topics[t.name] = t.partitions !== undefined && random() < 0.5 ? t.partitions : 1 + Math.floor(random() * 8);
    }
  }
  return { name: `random seed ${seed}`, topology: topology(Math.floor(random() * 10), specs), topics };
}

async function compare(cases: readonly Case[]): Promise<unknown[]> {
  const kafka = await kafkaConfiguredTopologies(cases.map((c) => ({ topology: topologyJson(c.topology), topics: c.topics })));
  for (let i = 0; i < cases.length; i++) {
    assert.deepStrictEqual(brookConfiguredJson(cases[i]!.topology, cases[i]!.topics), kafka[i], cases[i]!.name);
  }
  return kafka;
}

describe('streams topology configuration vs Kafka 4.4 InternalTopicManager', () => {
  it('hand-written topologies', T, async () => {
    const kafka = await compare(handWritten);
    // The cases reach every outcome: ready, each status, and the exception.
    const outcomes = new Set(kafka.map((k) => {
      const r = k as { status?: number | null; exception?: string };
      return r.exception ?? String(r.status);
    }));
    assert.deepStrictEqual([...outcomes].sort(), ['1', '2', '3', 'StreamsInvalidTopologyException', 'null']);
  });

  it('random topologies', T, async () => {
    const cases = Array.from({ length: 1500 }, (_, i) => randomCase(1000 + i));
    const kafka = await compare(cases);
    const outcomes = new Map<string, number>();
    for (const k of kafka) {
      const r = k as { status?: number | null; exception?: string };
      const key = r.exception ?? String(r.status);
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    // Every outcome occurs often enough for the comparison to mean something.
    for (const key of ['1', '2', '3', 'null', 'StreamsInvalidTopologyException']) {
      assert.ok((outcomes.get(key) ?? 0) >= 10, `outcome ${key}: ${JSON.stringify([...outcomes])}`);
    }
  });

  it('tells a different cluster apart (the comparison can fail)', T, async () => {
    // The same topologies against topics with one more partition each: Kafka's answers
    // for the original topics must differ from Brook's for the changed ones.
    const cases = handWritten.filter((c) => Object.keys(c.topics).length > 0);
    const kafka = await kafkaConfiguredTopologies(cases.map((c) => ({ topology: topologyJson(c.topology), topics: c.topics })));
    let differing = 0;
    for (let i = 0; i < cases.length; i++) {
      const bumped = Object.fromEntries(Object.entries(cases[i]!.topics).map(([t, n]) => [t, n + 1]));
      try {
        assert.deepStrictEqual(brookConfiguredJson(cases[i]!.topology, bumped), kafka[i]);
      } catch {
        differing++;
      }
    }
    assert.ok(differing >= 10, `${differing} of ${cases.length} differ`);
  });
});
