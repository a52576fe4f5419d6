/**
 * The consumer's typed errors. Each has a literal `code`; errors raised by background work
 * (heartbeats, fetches, auto-commits) are kept and thrown from the next poll(), never left
 * as unhandled rejections.
 */
import { BrookError } from '../../protocol/errors.js';

/** A commit failed for good: the group rebalanced, the member was removed, or the generation moved on (Java's CommitFailedException). */
export class CommitFailedError extends BrookError {
  readonly code = 'ERR_COMMIT_FAILED' as const;
}

/**
 * A commit reached the group while it was rebalancing (Java's RebalanceInProgressException):
 * nothing was committed; poll() to finish the rebalance, then commit again.
 */
export class RebalanceInProgressError extends BrookError {
  readonly code = 'ERR_REBALANCE_IN_PROGRESS' as const;
}

/** Another consumer with the same group.instance.id joined (Java's FencedInstanceIdException); fatal. */
export class FencedInstanceIdError extends BrookError {
  readonly code = 'ERR_FENCED_INSTANCE_ID' as const;
}

/** auto.offset.reset=none and a partition has no committed offset, or its position fell out of range. */
export class NoOffsetForPartitionError extends BrookError {
  readonly code = 'ERR_NO_OFFSET_FOR_PARTITION' as const;
}

/** An assignor name that no registry entry answers to. */
export class UnknownAssignorError extends BrookError {
  readonly code = 'ERR_UNKNOWN_ASSIGNOR' as const;
}

/** The consumer was used in a way its state does not allow (poll after close, seek on an unassigned partition, ...). */
export class IllegalConsumerStateError extends BrookError {
  readonly code = 'ERR_ILLEGAL_STATE' as const;
}

/** The group coordinator answered with an error the consumer cannot recover from. */
export class GroupError extends BrookError {
  readonly code = 'ERR_GROUP' as const;
}

/** A poll or commit was aborted by its AbortSignal or by close(). */
export class ConsumerAbortedError extends BrookError {
  readonly code = 'ERR_ABORTED' as const;
}
