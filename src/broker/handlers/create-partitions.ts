/**
 * CreatePartitions: raises topics' partition counts, checked as Kafka's controller checks
 * (ControllerApis and ReplicationControlManager.createPartitions), with its error codes and
 * messages. One broker, so a manual assignment may only name this broker, once per
 * partition. The new partitions start empty; the group coordinator is told, so consumer
 * groups assign them, and clients see them at their next metadata refresh.
 *
 * A deliberate difference: `__consumer_offsets` keeps its partition count
 * (INVALID_TOPIC_EXCEPTION), where Kafka 4.4 lets it grow. Which of its partitions holds a
 * group follows from the count, so growing it would move groups away from their committed
 * offsets (test/interop/admin-configs-differential.test.ts).
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  CreatePartitionsRequestData, CreatePartitionsResponseData, CreatePartitionsTopic, CreatePartitionsTopicResult,
} from '../../protocol/messages/create-partitions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { StorageError } from '../../storage/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { defineHandler, type RequestContext } from '../handler.js';

/**
 * Kafka's QuorumController.MAX_RECORDS_PER_USER_OP: a request adding more partitions than
 * this (over all its topics) fails as a whole with POLICY_VIOLATION.
 */
const MAX_NEW_PARTITIONS_PER_REQUEST = 10_000;

function result(name: string, errorCode: number, errorMessage: string | null): CreatePartitionsTopicResult {
  return { name, errorCode, errorMessage };
}

/** The number of partitions `t` adds, or the error that refuses it. */
function check(ctx: RequestContext, t: CreatePartitionsTopic): number | CreatePartitionsTopicResult {
  const { storage, config } = ctx.broker;
  const topic = storage.topic(t.name);
  // Kafka's controller throws UnknownTopicOrPartitionException without a message.
  if (!topic) return result(t.name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, null);
  try {
    storage.createPartitions(t.name, t.count, { validateOnly: true });
  } catch (err) {
    if (err instanceof StorageError) return result(t.name, err.errorCode, err.detail);
    throw err;
  }
  const additional = t.count - topic.partitions;
  if (t.assignments !== null) {
    if (t.assignments.length !== additional) {
      return result(t.name, ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        `Attempted to add ${additional} additional partition(s), but only ${t.assignments.length} assignment(s) were specified.`);
    }
    for (const { brokerIds } of t.assignments) {
      const why = assignmentProblem(brokerIds, config.nodeId);
      if (why !== null) return result(t.name, ErrorCode.INVALID_REPLICA_ASSIGNMENT, why);
    }
  }
  if (topic.isInternal) {
    return result(t.name, ErrorCode.INVALID_TOPIC_EXCEPTION, `Cannot increase the number of partitions of internal topic ${t.name}`);
  }
  return additional;
}

/** Kafka's validateManualPartitionAssignment for a cluster of one broker (replication factor 1). */
export function assignmentProblem(brokerIds: readonly number[], nodeId: number): string | null {
  if (brokerIds.length === 0) return 'The manual partition assignment includes an empty replica list.';
  const sorted = [...brokerIds].sort((a, b) => a - b);
  let previous: number | null = null;
  for (const id of sorted) {
    if (id !== nodeId) return `The manual partition assignment includes broker ${id}, but no such broker is registered.`;
    if (id === previous) return `The manual partition assignment includes the broker ${id} more than once.`;
    previous = id;
  }
  return null;
}

export const createPartitionsHandler = defineHandler<CreatePartitionsRequestData, CreatePartitionsResponseData>({
  api: Api.CreatePartitions,
  authorization: authorizes({ TOPIC: ['ALTER'] }),
  // Kafka 4 serves v0 too (CreatePartitions was not part of KIP-896's removals).
  minVersion: 0,
  maxVersion: Api.CreatePartitions.request.highestVersion,
  handle(ctx, request) {
    const { storage, log } = ctx.broker;
    const counts = new Map<string, number>();
    for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    // As Kafka's ControllerApis: each name given more than once gets one INVALID_REQUEST,
    // listed first; the others are checked and, unless one fails, created.
    const results: CreatePartitionsTopicResult[] = [];
    for (const [name, count] of counts) {
      if (count > 1) results.push(result(name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
    }
    // Then, as Kafka, those the client may not ALTER (no message).
    const unique = request.topics.filter((t) => counts.get(t.name) === 1);
    const alterable = unique.filter((t) => authorize(ctx, AclOperation.ALTER, ResourceType.TOPIC, t.name));
    for (const t of unique) if (!alterable.includes(t)) results.push(result(t.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, null));
    const checked = alterable.map((t) => ({ t, outcome: check(ctx, t) }));
    const adding = checked.reduce((sum, c) => sum + (typeof c.outcome === 'number' ? c.outcome : 0), 0);
    if (adding > MAX_NEW_PARTITIONS_PER_REQUEST) {
      // The controller applies a request's records atomically: too many fail all topics.
      for (const { t } of checked) results.push(result(t.name, ErrorCode.POLICY_VIOLATION, 'Excessively large number of additional partitions per request.'));
      return { throttleTimeMs: 0, results };
    }
    let changed = false;
    for (const { t, outcome } of checked) {
      if (typeof outcome !== 'number') {
        results.push(outcome);
        continue;
      }
      if (!request.validateOnly) {
        try {
          storage.createPartitions(t.name, t.count);
        } catch (err) {
          if (!(err instanceof StorageError)) throw err;
          results.push(result(t.name, err.errorCode, err.detail));
          continue;
        }
        changed = true;
        log.info('added partitions', { topic: t.name, partitions: t.count });
      }
      results.push(result(t.name, ErrorCode.NONE, null));
    }
    if (changed) ctx.broker.groups.topicsChanged();
    return { throttleTimeMs: 0, results };
  },
});
