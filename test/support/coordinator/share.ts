/**
 * ShareGroupHeartbeat and ShareGroupDescribe requests for the coordinator harness, with
 * topics named rather than given by id (the harness's setTopics gives the ids).
 */
import type { ShareGroupHeartbeatResponseData } from '../../../src/protocol/messages/share-group-heartbeat.js';
import type { ShareGroupDescribeResponseDescribedGroup } from '../../../src/protocol/messages/share-group-describe.js';
import type { CoordinatorHarness, Sent } from './harness.js';

export interface ShareHeartbeatOptions {
  group?: string;
  memberId: string;
  epoch: number;
  rackId?: string | null;
  topics?: string[] | null;
  clientId?: string;
}

export function sgHeartbeat(h: CoordinatorHarness, o: ShareHeartbeatOptions): Sent<ShareGroupHeartbeatResponseData> {
  return h.send('ShareGroupHeartbeat', 1, {
    groupId: o.group ?? 'g',
    memberId: o.memberId,
    memberEpoch: o.epoch,
    rackId: o.rackId ?? null,
    subscribedTopicNames: o.topics ?? null,
  }, o.clientId ?? 'share-consumer');
}

/** A member joining (epoch 0) subscribed to `topics` (default ['t']). */
export function sgJoin(h: CoordinatorHarness, memberId: string, topics: string[] = ['t'], group = 'g'): ShareGroupHeartbeatResponseData {
  return sgHeartbeat(h, { group, memberId, epoch: 0, topics }).answer;
}

/** A regular heartbeat: member id and epoch only. */
export function sgBeat(h: CoordinatorHarness, memberId: string, epoch: number, group = 'g'): ShareGroupHeartbeatResponseData {
  return sgHeartbeat(h, { group, memberId, epoch }).answer;
}

export function sgDescribe(h: CoordinatorHarness, group = 'g'): ShareGroupDescribeResponseDescribedGroup {
  return h.send('ShareGroupDescribe', 1, { groupIds: [group], includeAuthorizedOperations: false }).answer.groups[0]!;
}
