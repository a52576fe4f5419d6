/**
 * What may legitimately differ between Apache Kafka's and Brook's answer to the same
 * request, and how each is made comparable. Every normalisation is listed in
 * `NORMALISATIONS` with the reason it is legitimate; `Normaliser.normalize` applies them
 * to a decoded response body, `diffValues` lists the fields that still differ.
 *
 * Normalising never hides a *structural* difference: a field is only ever replaced by a
 * placeholder that both sides get when both have a value of the same kind (e.g. a non-null
 * error message), so a null on one side against a text on the other still shows.
 */
import { ZERO_UUID } from '../../../src/protocol/messages/runtime.js';

/** The normalisations, in one place, each with why it is legitimate. */
export const NORMALISATIONS: readonly { readonly field: string; readonly becomes: string; readonly why: string }[] = [
  {
    field: 'throttleTimeMs',
    becomes: '0',
    why: 'quota throttling is a per-broker runtime decision; neither broker has quotas configured, so any value is noise',
  },
  {
    field: 'clusterId',
    becomes: '<cluster>',
    why: 'each broker generates a random cluster id when its storage is formatted',
  },
  {
    field: 'nodeId, brokerId, leaderId, controllerId, replicaNodes[], isrNodes[] equal to the broker\'s own node id',
    becomes: '<node>',
    why: 'node ids are configuration (both happen to use 1); only "it is this broker" matters',
  },
  {
    field: 'host, port of broker endpoints',
    becomes: '<host>, <port>',
    why: 'each broker listens on its own OS-chosen port',
  },
  {
    field: 'topicId (non-zero)',
    becomes: '<topicId:NAME>',
    why: 'topic ids are random per broker; the mapping id -> name is learnt from the responses, so an id that names the wrong topic still differs',
  },
  {
    field: 'errorMessage, batchIndexErrorMessage (non-null)',
    becomes: '<message>',
    why: 'Kafka\'s wording is free text clients must not parse; null vs text is kept and compared',
  },
  {
    field: 'producerId from InitProducerId (and echoed in batches)',
    becomes: '<producerId>',
    why: 'each broker allocates producer ids from its own blocks',
  },
  {
    field: 'Metadata topics[] (all topics) and partitions[]',
    becomes: 'sorted by name / partitionIndex',
    why: 'Kafka lists them from hash maps; their order carries no meaning (clients index them by name and partition)',
  },
  {
    field: 'DescribeConfigs results[].configs[] and CreateTopics topics[].configs[]',
    becomes: 'sorted by name',
    why: 'Kafka lists configs from hash maps; clients index them by name',
  },
  {
    field: 'DeleteTopics responses[]; ListOffsets topics[] and partitions[]',
    becomes: 'sorted by name (then topic id) / partition index',
    why: 'Kafka answers these from maps (ControllerApis.deleteTopics, ReplicaManager.fetchOffset); clients match answers by name and partition',
  },
  {
    field: 'min.insync.replicas described with source DYNAMIC_DEFAULT_BROKER_CONFIG (3), and its synonym of that source',
    becomes: 'source DEFAULT_CONFIG (5); the synonym dropped',
    why: 'the test environment, not broker behaviour: Kafka 4.4\'s storage formatter stores min.insync.replicas as a cluster-wide dynamic default (KIP-966); the value is still compared',
  },
  {
    field: 'ConsumerGroupHeartbeat assignment and ConsumerGroupDescribe assignments: topics[] and partitions[]; described groups[], members[] and subscribedTopicNames[]',
    becomes: 'sorted by topic id / partition / group id / member id / name (test/interop/consumer-groups-differential.test.ts)',
    why: 'Kafka builds them from hash sets and maps, and orders described groups by __consumer_offsets partition; clients treat them as sets',
  },
  {
    field: 'topic ids in consumer-group tests',
    becomes: 'not normalised: Brook\'s topics get Kafka\'s ids (Broker.createTopic with topicId)',
    why: 'the uniform assignor walks topics in hash order of their ids, so equal ids are needed for equal assignments; member ids are the client\'s own (ConsumerGroupHeartbeat v1)',
  },
  {
    field: 'sessionId of Fetch responses (non-zero)',
    becomes: '<session>',
    why: 'fetch session ids are random',
  },
];

export interface SideIdentity {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly clusterId: string;
}

const MIN_ISR = 'min.insync.replicas';
const DYNAMIC_DEFAULT_BROKER_CONFIG = 3;
const DEFAULT_CONFIG = 5;
const NODE_KEYS = new Set(['nodeId', 'brokerId', 'leaderId', 'controllerId']);
const NODE_LIST_KEYS = new Set(['replicaNodes', 'isrNodes']);
const MESSAGE_KEYS = new Set(['errorMessage', 'batchIndexErrorMessage']);

/** Per-broker normaliser: knows the broker's identity and the topic ids it has handed out. */
export class Normaliser {
  private readonly topicNames = new Map<string, string>();
  private readonly producerIds = new Set<string>();

  constructor(readonly side: SideIdentity) {}

  /** Remembers that `topicId` names `name` on this broker. */
  registerTopic(name: string, topicId: string | undefined): void {
    if (topicId !== undefined && topicId !== ZERO_UUID) this.topicNames.set(topicId, name);
  }

  /** The id this broker gave `name`, if learnt. */
  topicId(name: string): string | undefined {
    for (const [id, n] of this.topicNames) if (n === name) return id;
    return undefined;
  }

  registerProducerId(id: bigint): void {
    this.producerIds.add(id.toString());
  }

  /** Learns (name, topicId) pairs anywhere in a response. */
  learn(value: unknown): void {
    if (Array.isArray(value)) {
      for (const v of value) this.learn(v);
      return;
    }
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return;
    const o = value as Record<string, unknown>;
    // Fetch v13+ responses decode `topic` as '' (the field is absent): no name there.
    const name = typeof o['name'] === 'string' && o['name'] !== '' ? o['name'] : typeof o['topic'] === 'string' && o['topic'] !== '' ? o['topic'] : undefined;
    if (name !== undefined && typeof o['topicId'] === 'string') this.registerTopic(name, o['topicId']);
    for (const v of Object.values(o)) this.learn(v);
  }

  /** A deep copy of `value` with every normalisation of `NORMALISATIONS` applied. */
  normalize(value: unknown): unknown {
    this.learn(value);
    return this.walk(value, '');
  }

  private walk(value: unknown, key: string): unknown {
    if (Array.isArray(value)) {
      if (NODE_LIST_KEYS.has(key)) return value.map((v) => (v === this.side.nodeId ? '<node>' : v));
      return value.map((v) => this.walk(v, ''));
    }
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return this.leaf(value, key);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (k === 'unknownTaggedFields') continue;
      out[k] = this.walk(v, k);
    }
    if (out['name'] === MIN_ISR && out['configSource'] === DYNAMIC_DEFAULT_BROKER_CONFIG) {
      out['configSource'] = DEFAULT_CONFIG;
      if (Array.isArray(out['synonyms'])) out['synonyms'] = (out['synonyms'] as { source: number }[]).filter((x) => x.source !== DYNAMIC_DEFAULT_BROKER_CONFIG);
    }
    return out;
  }

  private leaf(value: unknown, key: string): unknown {
    if (key === 'throttleTimeMs') return 0;
    if (key === 'clusterId' && typeof value === 'string') return value === this.side.clusterId ? '<cluster>' : value;
    if (NODE_KEYS.has(key) && value === this.side.nodeId) return '<node>';
    if (key === 'host' && value === this.side.host) return '<host>';
    if (key === 'port' && value === this.side.port) return '<port>';
    if (key === 'topicId' && typeof value === 'string' && value !== ZERO_UUID) {
      const name = this.topicNames.get(value);
      return name === undefined ? value : `<topicId:${name}>`;
    }
    if (MESSAGE_KEYS.has(key) && typeof value === 'string') return '<message>';
    if (key === 'producerId' && typeof value === 'bigint' && this.producerIds.has(value.toString())) return '<producerId>';
    if (key === 'sessionId' && typeof value === 'number' && value !== 0) return '<session>';
    return value;
  }
}

/** Metadata responses with topics sorted by name and partitions by index (see NORMALISATIONS). */
export function sortMetadata<T extends { topics: { name: string | null; partitions: { partitionIndex: number }[] }[] }>(response: T): T {
  const topics = [...response.topics]
    .sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : 0))
    .map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex) }));
  return { ...response, topics };
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** DescribeConfigs responses with each resource's configs sorted by name (see NORMALISATIONS). */
export function sortDescribeConfigs<T extends { results: { configs: { name: string }[] }[] }>(response: T): T {
  return { ...response, results: response.results.map((r) => ({ ...r, configs: [...r.configs].sort(byName) })) };
}

/** CreateTopics responses with each topic's configs sorted by name (see NORMALISATIONS). */
export function sortCreateTopics<T extends { topics: { configs?: { name: string }[] | null }[] }>(response: T): T {
  return { ...response, topics: response.topics.map((t) => (t.configs ? { ...t, configs: [...t.configs].sort(byName) } : t)) };
}

/** DeleteTopics responses sorted by name, then topic id (see NORMALISATIONS). */
export function sortDeleteTopics<T extends { responses: { name: string | null; topicId?: string }[] }>(response: T): T {
  const key = (r: { name: string | null; topicId?: string }): string => `${r.name ?? ''}\u0000${r.topicId ?? ''}`;
  return { ...response, responses: [...response.responses].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) };
}

/** ListOffsets responses with topics sorted by name and partitions by index (see NORMALISATIONS). */
export function sortListOffsets<T extends { topics: { name: string; partitions: { partitionIndex: number }[] }[] }>(response: T): T {
  const topics = [...response.topics].sort(byName)
    .map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex) }));
  return { ...response, topics };
}

function show(v: unknown): string {
  if (typeof v === 'bigint') return `${v}n`;
  if (Buffer.isBuffer(v)) return v.length <= 32 ? `<${v.length} bytes ${v.toString('hex')}>` : `<${v.length} bytes ${v.subarray(0, 32).toString('hex')}...>`;
  if (v === undefined) return 'undefined';
  const text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/**
 * Every path where `kafka` and `brook` differ, as "path: kafka=X brook=Y". Buffers are
 * compared byte for byte (the first differing byte is named).
 */
export function diffValues(kafka: unknown, brook: unknown, path = ''): string[] {
  if (Buffer.isBuffer(kafka) && Buffer.isBuffer(brook)) {
    if (kafka.equals(brook)) return [];
    let i = 0;
    while (i < kafka.length && i < brook.length && kafka[i] === brook[i]) i++;
    return [`${path}: bytes differ at ${i} (kafka ${kafka.length} bytes, brook ${brook.length}): kafka=${show(kafka)} brook=${show(brook)}`];
  }
  if (Array.isArray(kafka) && Array.isArray(brook)) {
    const out: string[] = [];
    if (kafka.length !== brook.length) out.push(`${path}.length: kafka=${kafka.length} brook=${brook.length}`);
    for (let i = 0; i < Math.min(kafka.length, brook.length); i++) out.push(...diffValues(kafka[i], brook[i], `${path}[${i}]`));
    return out;
  }
  const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && !Buffer.isBuffer(v);
  if (isObj(kafka) && isObj(brook)) {
    const out: string[] = [];
    const keys = new Set([...Object.keys(kafka), ...Object.keys(brook)]);
    for (const k of keys) out.push(...diffValues(kafka[k], brook[k], path === '' ? k : `${path}.${k}`));
    return out;
  }
  if (kafka === brook) return [];
  return [`${path}: kafka=${show(kafka)} brook=${show(brook)}`];
}
