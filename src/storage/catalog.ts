/**
 * The topic catalog: names, Kafka topic ids, partition counts, explicit configs, the internal
 * flag, and the cluster id (generated once). The file engine persists it as one JSON file,
 * replaced atomically on every change; the memory engine keeps it in memory.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode } from '../protocol/errors.js';
import { ioError, StorageError } from './errors.js';
import type { FileSystem } from './file-system.js';
import { readIfExists, writeAtomicSync } from './fs-util.js';
import { validateTopicConfigs } from './topic-configs.js';
import type { TopicConfigs, TopicMetadata } from './types.js';

/** Kafka's Topic.MAX_NAME_LENGTH: a partition directory name must stay under 255 bytes. */
export const MAX_TOPIC_NAME_LENGTH = 249;
const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]+$/;

/**
 * Kafka's Uuid.randomUuid: a random (v4) UUID as 22 characters of unpadded base64url,
 * never the reserved zero or metadata-topic ids and never starting with '-' (which command
 * line tools would take for an option).
 */
export function randomUuid(): string {
  for (;;) {
    const bytes = randomBytes(16);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const text = bytes.toString('base64url');
    if (!text.startsWith('-')) return text;
  }
}

/** Kafka's Topic.validate: INVALID_TOPIC_EXCEPTION unless 1-249 of [a-zA-Z0-9._-], not "." or "..". */
export function validateTopicName(name: string): void {
  const fail = (why: string): never => {
    throw new StorageError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic name "${name}" is illegal, ${why}`);
  };
  if (name.length === 0) fail('it can\'t be empty');
  if (name === '.' || name === '..') fail('it can\'t be "." or ".."');
  if (name.length > MAX_TOPIC_NAME_LENGTH) fail(`it can't be longer than ${MAX_TOPIC_NAME_LENGTH} characters`);
  if (!LEGAL_TOPIC_NAME.test(name)) fail('it contains a character other than ASCII alphanumerics, \'.\', \'_\' and \'-\'');
}

/** Kafka's Topic.unifyCollisionChars: '.' and '_' collide in metric names. */
function collisionKey(name: string): string {
  return name.replace(/\./g, '_');
}

interface CatalogData {
  readonly version: 1;
  readonly clusterId: string;
  readonly topics: TopicMetadata[];
  /** Producer ids below this were (possibly) handed out. */
  readonly producerIdBlockEnd?: string;
  /** Dynamic broker configs by Kafka's resource name: '' (the cluster default) or a node id. */
  readonly brokerConfigs?: Record<string, TopicConfigs>;
}

/** Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE. */
export const PRODUCER_ID_BLOCK_SIZE = 1000n;

/** Where a catalog lives: nowhere (memory) or a JSON file. */
export interface CatalogPersistence {
  load(): CatalogData | null;
  save(data: CatalogData): void;
}

export const NO_PERSISTENCE: CatalogPersistence = { load: () => null, save: () => undefined };

export function fileCatalogPersistence(fs: FileSystem, path: string): CatalogPersistence {
  return {
    load() {
      const data = readIfExists(fs, path);
      if (!data) return null;
      const parsed = JSON.parse(data.toString('utf8')) as CatalogData;
      if (parsed.version !== 1 || typeof parsed.clusterId !== 'string' || !Array.isArray(parsed.topics)) {
        throw new StorageError(ErrorCode.KAFKA_STORAGE_ERROR, `${path} is not a Brook catalog`);
      }
      return parsed;
    },
    save(data) {
      try {
        writeAtomicSync(fs, path, `${JSON.stringify(data, null, 2)}\n`);
      } catch (err) {
        throw ioError(`writing ${path} failed`, err);
      }
    },
  };
}

export class Catalog {
  readonly clusterId: string;
  private readonly byName = new Map<string, TopicMetadata>();
  private readonly byId = new Map<string, TopicMetadata>();
  private nextProducerId: bigint;
  private producerIdBlockEnd: bigint;
  private readonly brokerConfigsByResource = new Map<string, TopicConfigs>();

  constructor(private readonly persistence: CatalogPersistence) {
    const data = persistence.load();
    this.clusterId = data?.clusterId ?? randomUuid();
    for (const t of data?.topics ?? []) this.index(Object.freeze({ ...t, configs: Object.freeze({ ...t.configs }) }));
    // Ids of the block in use when the last run stopped may have been handed out: start after it.
    this.producerIdBlockEnd = BigInt(data?.producerIdBlockEnd ?? '0');
    this.nextProducerId = this.producerIdBlockEnd;
    for (const [resource, configs] of Object.entries(data?.brokerConfigs ?? {})) this.brokerConfigsByResource.set(resource, Object.freeze({ ...configs }));
    if (!data) this.save();
  }

  allocateProducerId(): bigint {
    if (this.nextProducerId >= this.producerIdBlockEnd) {
      const previous = this.producerIdBlockEnd;
      this.producerIdBlockEnd = this.nextProducerId + PRODUCER_ID_BLOCK_SIZE;
      this.saveOrUndo(() => { this.producerIdBlockEnd = previous; });
    }
    return this.nextProducerId++;
  }

  topic(name: string): TopicMetadata | undefined {
    return this.byName.get(name);
  }

  topicById(topicId: string): TopicMetadata | undefined {
    return this.byId.get(topicId);
  }

  topics(): TopicMetadata[] {
    return [...this.byName.values()];
  }

  /** Validates a new topic as Kafka's controller does and returns it; `commit` adds and persists it. */
  prepare(name: string, partitions: number, configs: TopicConfigs, isInternal: boolean, defaults: TopicConfigs, givenId?: string): TopicMetadata {
    validateTopicName(name);
    if (this.byName.has(name)) throw new StorageError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const key = collisionKey(name);
    for (const other of this.byName.keys()) {
      if (collisionKey(other) === key) {
        throw new StorageError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${other}`);
      }
    }
    if (!Number.isInteger(partitions) || partitions < 1) {
      throw new StorageError(ErrorCode.INVALID_PARTITIONS, `Number of partitions was set to an invalid non-positive value (${partitions}).`);
    }
    validateTopicConfigs(configs, defaults);
    if (givenId !== undefined && (Buffer.from(givenId, 'base64url').length !== 16 || this.byId.has(givenId))) {
      throw new StorageError(ErrorCode.INVALID_REQUEST, `Topic id ${givenId} is not a free topic id.`);
    }
    let topicId = givenId ?? randomUuid();
    while (givenId === undefined && this.byId.has(topicId)) topicId = randomUuid();
    return Object.freeze({ name, topicId, partitions, configs: Object.freeze({ ...configs }), isInternal });
  }

  commit(topic: TopicMetadata): void {
    this.index(topic);
    this.saveOrUndo(() => this.unindex(topic));
  }

  /** Replaces a topic's metadata (more partitions, other configs) and persists it. */
  replace(topic: TopicMetadata): void {
    const previous = this.byName.get(topic.name);
    if (!previous || previous.topicId !== topic.topicId) throw new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${topic.name}' does not exist.`);
    this.index(topic);
    this.saveOrUndo(() => this.index(previous));
  }

  brokerConfigs(resource: string): TopicConfigs {
    return this.brokerConfigsByResource.get(resource) ?? {};
  }

  /** Replaces one resource's dynamic broker configs and persists them. */
  setBrokerConfigs(resource: string, configs: TopicConfigs): void {
    const previous = this.brokerConfigsByResource.get(resource);
    const restore = (): void => {
      if (previous) this.brokerConfigsByResource.set(resource, previous);
      else this.brokerConfigsByResource.delete(resource);
    };
    if (Object.keys(configs).length === 0) this.brokerConfigsByResource.delete(resource);
    else this.brokerConfigsByResource.set(resource, Object.freeze({ ...configs }));
    this.saveOrUndo(restore);
  }

  remove(name: string): TopicMetadata {
    const topic = this.byName.get(name);
    if (!topic) throw new StorageError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    this.unindex(topic);
    this.saveOrUndo(() => this.index(topic));
    return topic;
  }

  private index(topic: TopicMetadata): void {
    this.byName.set(topic.name, topic);
    this.byId.set(topic.topicId, topic);
  }

  private unindex(topic: TopicMetadata): void {
    this.byName.delete(topic.name);
    this.byId.delete(topic.topicId);
  }

  /** Persists the change just made, or undoes it in memory when it cannot be written (disk full): memory never runs ahead of the file. */
  private saveOrUndo(undo: () => void): void {
    try {
      this.save();
    } catch (err) {
      undo();
      throw err;
    }
  }

  private save(): void {
    this.persistence.save({
      version: 1, clusterId: this.clusterId, topics: this.topics(), producerIdBlockEnd: this.producerIdBlockEnd.toString(),
      brokerConfigs: Object.fromEntries(this.brokerConfigsByResource),
    });
  }
}
