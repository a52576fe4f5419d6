/**
 * StreamsGroupHeartbeat (KIP-1071): join, heartbeat and leave of a streams group. As Kafka
 * 4.4's KafkaApis.handleStreamsGroupHeartbeat: UNSUPPORTED_VERSION unless
 * group.coordinator.rebalance.protocols has `streams`; READ on the group (else
 * GROUP_AUTHORIZATION_FAILED); a joining member's topology may not use Kafka's internal topics
 * nor invalid topic names (STREAMS_INVALID_TOPOLOGY) and needs DESCRIBE on every topic it names
 * (else TOPIC_AUTHORIZATION_FAILED). Once the coordinator answered, the internal topics it
 * found missing are created (src/broker/streams/internal-topics.ts: only when the principal
 * may CREATE all of them; else, and for earlier failed creations, the MISSING_INTERNAL_TOPICS
 * status says why).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsGroupHeartbeatRequestData, StreamsGroupHeartbeatResponseData } from '../../protocol/messages/streams-group-heartbeat.js';
import { streamsGroupHeartbeatError, type StreamsInternalTopicsToCreate } from '../../coordinator/index.js';
import { validateTopicName } from '../../storage/catalog.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes, filterAuthorized } from '../authorization.js';
import { createStreamsInternalTopics } from '../streams/internal-topics.js';
import { INTERNAL_TOPIC_NAMES } from './metadata.js';

function isValidTopicName(name: string): boolean {
  try {
    validateTopicName(name);
    return true;
  } catch {
    return false;
  }
}

function topologyTopics(topology: NonNullable<StreamsGroupHeartbeatRequestData['topology']>): string[] {
  const names = new Set<string>();
  for (const s of topology.subtopologies) {
    for (const t of s.sourceTopics) names.add(t);
    for (const t of s.repartitionSinkTopics) names.add(t);
    for (const t of s.repartitionSourceTopics) names.add(t.name);
    for (const t of s.stateChangelogTopics) names.add(t.name);
  }
  return [...names];
}

function invalidTopology(message: string): StreamsGroupHeartbeatResponseData {
  return streamsGroupHeartbeatError(ErrorCode.STREAMS_INVALID_TOPOLOGY, message);
}

export const streamsGroupHeartbeatHandler = defineHandler<StreamsGroupHeartbeatRequestData, StreamsGroupHeartbeatResponseData>({
  api: Api.StreamsGroupHeartbeat,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['DESCRIBE', 'CREATE'], CLUSTER: ['CREATE'] }),
  minVersion: Api.StreamsGroupHeartbeat.request.lowestVersion,
  maxVersion: Api.StreamsGroupHeartbeat.request.highestVersion,
  handle(ctx, request) {
    if (!ctx.broker.config.groupCoordinatorRebalanceProtocols.includes('streams')) return streamsGroupHeartbeatError(ErrorCode.UNSUPPORTED_VERSION);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return streamsGroupHeartbeatError(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (request.topology !== null) {
      const required = topologyTopics(request.topology);
      const internal = required.filter((t) => INTERNAL_TOPIC_NAMES.has(t));
      if (internal.length > 0) return invalidTopology(`Use of Kafka internal topics ${internal.join(',')} in a Kafka Streams topology is prohibited.`);
      const invalid = required.filter((t) => !isValidTopicName(t));
      if (invalid.length > 0) return invalidTopology(`Topic names ${invalid.join(',')} are not valid topic names.`);
      if (filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, required).size < required.length) {
        return streamsGroupHeartbeatError(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      }
    }
    let toCreate: readonly StreamsInternalTopicsToCreate[] = [];
    return ctx.broker.groups
      .submit<StreamsGroupHeartbeatResponseData>(ctx, (c, cctx) => {
        const result = c.streamsGroupHeartbeat(cctx, request);
        toCreate = result.streamsInternalTopics ?? [];
        return result;
      }, (errorCode) => streamsGroupHeartbeatError(errorCode))
      .then((answer) => {
        if (answer.errorCode !== ErrorCode.NONE) return answer;
        for (const { topics } of toCreate) {
          const status = createStreamsInternalTopics(ctx, topics, answer.status ?? [], answer.heartbeatIntervalMs);
          if (answer.status !== null || status.length > 0) answer.status = status;
        }
        return answer;
      });
  },
});
