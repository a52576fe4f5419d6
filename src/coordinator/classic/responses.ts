/**
 * Response bodies shaped for the version of the request they answer. The generated
 * encoders throw on a non-ignorable field that a version cannot carry, so every field a
 * version lacks is left at its default here — the same adjustments Kafka's
 * `JoinGroupResponse` / `LeaveGroupResponse` constructors make.
 */
import type { JoinGroupResponseData, JoinGroupResponseMember } from '../../protocol/messages/join-group.js';
import type { SyncGroupResponseData } from '../../protocol/messages/sync-group.js';
import type { HeartbeatResponseData } from '../../protocol/messages/heartbeat.js';
import type { LeaveGroupResponseData, MemberResponse } from '../../protocol/messages/leave-group.js';
import { ErrorCode } from '../../protocol/errors.js';
import { EMPTY_ASSIGNMENT } from './member.js';

export interface JoinReply {
  errorCode: number;
  memberId: string;
  generationId?: number;
  protocolType?: string | null;
  protocolName?: string | null;
  leader?: string | null;
  skipAssignment?: boolean;
  members?: JoinGroupResponseMember[];
}

export function joinGroupResponse(version: number, reply: JoinReply): JoinGroupResponseData {
  // Before v7 the protocol name is not nullable: Kafka sends "" for "none"; from v7 it sends null.
  const name = reply.protocolName ?? null;
  const protocolName = version < 7 ? (name ?? '') : name === '' ? null : name;
  return {
    throttleTimeMs: 0,
    errorCode: reply.errorCode,
    generationId: reply.generationId ?? -1,
    protocolType: version >= 7 ? (reply.protocolType ?? null) : null,
    protocolName,
    leader: reply.leader ?? '',
    skipAssignment: version >= 9 ? (reply.skipAssignment ?? false) : false,
    memberId: reply.memberId,
    members: (reply.members ?? []).map((m) => ({
      memberId: m.memberId,
      groupInstanceId: version >= 5 ? (m.groupInstanceId ?? null) : null,
      metadata: m.metadata,
    })),
  };
}

export function joinGroupError(version: number, errorCode: number, memberId: string): JoinGroupResponseData {
  return joinGroupResponse(version, { errorCode, memberId });
}

export interface SyncReply {
  errorCode: number;
  protocolType?: string | null;
  protocolName?: string | null;
  assignment?: Buffer;
}

export function syncGroupResponse(version: number, reply: SyncReply): SyncGroupResponseData {
  return {
    throttleTimeMs: 0,
    errorCode: reply.errorCode,
    protocolType: version >= 5 ? (reply.protocolType ?? null) : null,
    protocolName: version >= 5 ? (reply.protocolName ?? null) : null,
    assignment: reply.assignment ?? EMPTY_ASSIGNMENT,
  };
}

export function syncGroupError(version: number, errorCode: number): SyncGroupResponseData {
  return syncGroupResponse(version, { errorCode });
}

export function heartbeatResponse(errorCode: number): HeartbeatResponseData {
  return { throttleTimeMs: 0, errorCode };
}

/**
 * v3+ carries per-member results; v0-2 has one member and only a top-level error: the
 * top-level error if any, else the first member error (Kafka's `LeaveGroupResponse`).
 */
export function leaveGroupResponse(version: number, topLevelError: number, members: MemberResponse[]): LeaveGroupResponseData {
  if (version >= 3) return { throttleTimeMs: 0, errorCode: topLevelError, members };
  const firstMemberError = members.find((m) => m.errorCode !== ErrorCode.NONE)?.errorCode ?? ErrorCode.NONE;
  return {
    throttleTimeMs: 0,
    errorCode: topLevelError !== ErrorCode.NONE ? topLevelError : firstMemberError,
    members: [],
  };
}
