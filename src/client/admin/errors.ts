/** The admin client's typed errors (beyond KafkaProtocolError for plain broker errors). */
import { BrookError } from '../../protocol/errors.js';

export { NoBrokerReachableError } from '../cluster.js';
export { UnsupportedApiVersionError } from '../errors.js';

/** The group does not exist (DescribeGroups says Dead, or a request says GROUP_ID_NOT_FOUND). */
export class GroupNotFoundError extends BrookError {
  readonly code = 'ERR_GROUP_NOT_FOUND' as const;
  constructor(readonly group: string) {
    // Kafka's kafka-consumer-groups wording.
    super(`Consumer group '${group}' does not exist.`);
  }
}

/** Offsets can only be reset while the group has no active members (Empty or Dead). */
export class GroupNotInactiveError extends BrookError {
  readonly code = 'ERR_GROUP_ACTIVE' as const;
  constructor(readonly group: string, readonly state: string) {
    // Kafka's kafka-consumer-groups wording.
    super(`Assignments can only be reset if the group '${group}' is inactive, but the current state is ${state}.`);
  }
}

/** A reset that cannot be planned: unknown partitions, no committed offset to shift, no leader. */
export class ResetOffsetsError extends BrookError {
  readonly code = 'ERR_RESET_OFFSETS' as const;
}
