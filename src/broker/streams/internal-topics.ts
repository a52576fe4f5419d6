/**
 * Creating a streams group's missing internal topics (repartition and changelog topics), as
 * Kafka 4.4's KafkaApis does after a StreamsGroupHeartbeat whose configured topology lists
 * topics to create (AutoTopicCreationManager.createStreamsInternalTopics):
 *
 * - The member's principal needs CREATE on the cluster, or on every one of the topics;
 *   otherwise nothing is created and the MISSING_INTERNAL_TOPICS status says which topics
 *   it may not create.
 * - Each topic is created through the CreateTopics path with the topology's partition
 *   count, replication factor (the broker's default when the topology gives none) and
 *   configs.
 * - A failed creation is remembered for twice the group's streams heartbeat interval (at
 *   most 1000 topics): the topic is not retried meanwhile, and the MISSING_INTERNAL_TOPICS
 *   status of the group's heartbeats carries the error.
 *
 * Kafka forwards the creation to its controller and learns the outcome asynchronously, so
 * a heartbeat reports the errors of earlier attempts only; Brook creates at once and, to
 * answer as Kafka does, reads the remembered errors before it creates.
 */
import type { ConfiguredInternalTopic } from '../../coordinator/streams/topology/types.js';
import { StreamsGroupStatus } from '../../coordinator/streams/topology/types.js';
import { JavaHashSet } from '../../coordinator/consumer/java-hash.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { Status } from '../../protocol/messages/streams-group-heartbeat.js';
import { stringHash } from '../../util/string-hash.js';
import { AclOperation, ResourceType, authorize, authorizeCluster } from '../authorization.js';
import type { BrokerContext } from '../broker-context.js';
import type { RequestContext } from '../handler.js';
import { createTopic } from '../handlers/create-topics.js';

/** Kafka's DefaultAutoTopicCreationManager keeps at most this many creation errors. */
const ERROR_CACHE_CAPACITY = 1000;

/** Recent creation errors by topic (Kafka's ExpiringErrorCache). */
class CreationErrors {
  private readonly byTopic = new Map<string, { message: string; expiresAtMs: number }>();

  put(topic: string, message: string, expiresAtMs: number, nowMs: number): void {
    this.byTopic.delete(topic);
    this.byTopic.set(topic, { message, expiresAtMs });
    // Expired entries go, then the soonest to expire while over capacity.
    const bySoonest = [...this.byTopic].sort((a, b) => a[1].expiresAtMs - b[1].expiresAtMs);
    for (const [name, entry] of bySoonest) {
      if (entry.expiresAtMs > nowMs && this.byTopic.size <= ERROR_CACHE_CAPACITY) break;
      this.byTopic.delete(name);
    }
  }

  error(topic: string, nowMs: number): string | undefined {
    const entry = this.byTopic.get(topic);
    return entry !== undefined && entry.expiresAtMs > nowMs ? entry.message : undefined;
  }
}

const errorsByBroker = new WeakMap<BrokerContext, CreationErrors>();

function creationErrors(broker: BrokerContext): CreationErrors {
  let errors = errorsByBroker.get(broker);
  if (errors === undefined) {
    errors = new CreationErrors();
    errorsByBroker.set(broker, errors);
  }
  return errors;
}

/**
 * Creates `topics` (the configured topology's internalTopicsToBeCreated, in that order) for
 * the StreamsGroupHeartbeat in `ctx`, and returns the heartbeat's status list with what
 * Kafka adds to it: unauthorized topics, or the errors of earlier failed creations, appended
 * to the MISSING_INTERNAL_TOPICS status. `heartbeatIntervalMs` is the group's streams
 * heartbeat interval (the one the response carries). The handler must declare CREATE on
 * CLUSTER and on TOPIC in its authorization.
 */
export function createStreamsInternalTopics(
  ctx: RequestContext,
  topics: readonly ConfiguredInternalTopic[],
  status: readonly Status[],
  heartbeatIntervalMs: number,
): Status[] {
  const result = status.map((s) => ({ ...s }));
  if (topics.length === 0) return result;
  const names = topics.map((t) => t.name);
  const missing = result.find((s) => s.statusCode === StreamsGroupStatus.MISSING_INTERNAL_TOPICS);

  const unauthorized = authorizeCluster(ctx, AclOperation.CREATE)
    ? []
    : names.filter((name) => !authorize(ctx, AclOperation.CREATE, ResourceType.TOPIC, name));
  if (unauthorized.length > 0) {
    const detail = `Unauthorized to CREATE on topics ${unauthorized.join(', ')}.`;
    if (missing !== undefined) missing.statusDetail = `${missing.statusDetail}; ${detail}`;
    else result.push({ statusCode: StreamsGroupStatus.MISSING_INTERNAL_TOPICS, statusDetail: detail });
    return result;
  }

  const nowMs = ctx.broker.clock.nowMs();
  const errors = creationErrors(ctx.broker);
  if (missing !== undefined) {
    const failed = failedCreations(errors, names, nowMs);
    if (failed.length > 0) {
      const shown = failed.slice(0, 3).map(([topic, message]) => `${topic} (${message})`).join(', ');
      const more = failed.length > 3 ? ` and ${failed.length - 3} more` : '';
      missing.statusDetail = `${missing.statusDetail}; Creation failed: ${shown}${more}.`;
    }
  }

  let created = false;
  for (const t of topics) {
    if (errors.error(t.name, nowMs) !== undefined) continue;
    const outcome = createTopic(ctx, {
      name: t.name,
      numPartitions: t.numberOfPartitions,
      replicationFactor: t.replicationFactor ?? -1,
      assignments: [],
      configs: [...t.topicConfigs].map(([name, value]) => ({ name, value })),
    }, false);
    if (outcome.errorCode === ErrorCode.NONE) {
      created = true;
    } else {
      const message = outcome.errorMessage !== null && outcome.errorMessage !== '' ? outcome.errorMessage : errorInfo(outcome.errorCode).message;
      errors.put(t.name, message, nowMs + 2 * heartbeatIntervalMs, nowMs);
      ctx.broker.log.warn('streams internal topic creation failed', { topic: t.name, error: message });
    }
  }
  if (created) ctx.broker.groups.topicsChanged();
  return result;
}

/** The remembered errors of these topics, in the order of the HashMap Kafka collects them in. */
function failedCreations(errors: CreationErrors, names: readonly string[], nowMs: number): [string, string][] {
  const found = new Map<string, string>();
  const order = JavaHashSet.empty<string>(stringHash);
  for (const name of names) {
    const message = errors.error(name, nowMs);
    if (message === undefined) continue;
    found.set(name, message);
    order.add(name);
  }
  return order.values().map((name) => [name, found.get(name)!]);
}
