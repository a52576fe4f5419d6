/**
 * What a client does about an error from a group coordinator — the one classification
 * used by group membership (JoinGroup, SyncGroup, Heartbeat), offset commits and fetches,
 * and the admin client's group requests, so that they never disagree. It follows Kafka's
 * Java clients (AbstractCoordinator, ConsumerCoordinator, the admin client's coordinator
 * strategy):
 *
 * - NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, REQUEST_TIMED_OUT, a broken connection or
 *   an unanswered request: the coordinator moved or is unreachable; look it up again.
 * - COORDINATOR_LOAD_IN_PROGRESS and the other retriable codes: the same coordinator will
 *   answer later; retry after retry.backoff.ms.
 * - REBALANCE_IN_PROGRESS: rejoin, keeping member id and generation for the JoinGroup.
 * - ILLEGAL_GENERATION: the generation is gone; forget it (owned partitions are lost) and
 *   rejoin with the same member id.
 * - UNKNOWN_MEMBER_ID: the membership is gone; forget member id and generation (owned
 *   partitions are lost) and rejoin as a new member.
 * - FENCED_INSTANCE_ID: another consumer took this group.instance.id; fatal.
 * - anything else (authorization, invalid group, metadata too large, ...): will not heal.
 *
 * The consumer protocol (KIP-848; Java's AbstractHeartbeatRequestManager and
 * CommitRequestManager) adds:
 *
 * - FENCED_MEMBER_EPOCH: the member's epoch is gone (ILLEGAL_GENERATION's counterpart): the
 *   partitions are lost and the member rejoins at epoch 0. UNKNOWN_MEMBER_ID means the same
 *   to a consumer-protocol member, which keeps its member id for the process's lifetime.
 * - STALE_MEMBER_EPOCH: a commit or offset fetch carried an epoch older than the
 *   coordinator's; a newer one is on its way in a heartbeat response. The commit before a
 *   revocation and OffsetFetch retry with it; commitSync fails (CommitFailedError).
 * - TOPIC_AUTHORIZATION_FAILED: reported to the application; a heartbeat keeps the
 *   membership (Java surfaces it from poll and heartbeats on), a commit fails.
 * - UNRELEASED_INSTANCE_ID, UNSUPPORTED_ASSIGNOR, GROUP_MAX_SIZE_REACHED,
 *   INVALID_REGULAR_EXPRESSION, GROUP_ID_NOT_FOUND: fatal, as every non-retriable code.
 *
 * An API may treat a code specially before asking (JoinGroup's MEMBER_ID_REQUIRED).
 */
import { ErrorCode, KafkaProtocolError, isRetriable } from '../protocol/errors.js';
import { ConnectionError, NoBrokerReachableError, RequestTimeoutError } from './errors.js';

export type CoordinatorErrorAction =
  | 'none'
  | 'find-coordinator'
  | 'retry'
  | 'rejoin'
  | 'reset-generation'
  | 'reset-member'
  | 'fenced'
  | 'stale-epoch'
  | 'report'
  | 'fatal';

export function coordinatorErrorAction(errorCode: number): CoordinatorErrorAction {
  switch (errorCode) {
    case ErrorCode.NONE:
      return 'none';
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.REQUEST_TIMED_OUT:
      return 'find-coordinator';
    case ErrorCode.REBALANCE_IN_PROGRESS:
      return 'rejoin';
    case ErrorCode.ILLEGAL_GENERATION:
    case ErrorCode.FENCED_MEMBER_EPOCH:
      return 'reset-generation';
    case ErrorCode.UNKNOWN_MEMBER_ID:
      return 'reset-member';
    case ErrorCode.FENCED_INSTANCE_ID:
      return 'fenced';
    case ErrorCode.STALE_MEMBER_EPOCH:
      return 'stale-epoch';
    case ErrorCode.TOPIC_AUTHORIZATION_FAILED:
      return 'report';
    default:
      return isRetriable(errorCode) ? 'retry' : 'fatal';
  }
}

/** The same classification for a thrown failure: a broker error, or a connection that broke or timed out. */
export function coordinatorFailureAction(err: unknown): CoordinatorErrorAction {
  if (err instanceof KafkaProtocolError) return coordinatorErrorAction(err.errorCode);
  if (err instanceof ConnectionError || err instanceof RequestTimeoutError || err instanceof NoBrokerReachableError) return 'find-coordinator';
  return 'fatal';
}

/** True when retrying (after a backoff, possibly with a fresh coordinator lookup) may succeed. */
export function isRetriableCoordinatorFailure(err: unknown): boolean {
  const action = coordinatorFailureAction(err);
  return action === 'retry' || action === 'find-coordinator';
}
