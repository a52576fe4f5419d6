/**
 * A group or transaction coordinator that moved away: the coordinator APIs answer the key's
 * requests with NOT_COORDINATOR (or another coordinator error), as a broker does once the
 * key's coordinator partition has gone elsewhere, while FindCoordinator still names this
 * broker (the only node), so a client looks its coordinator up again and comes back. The
 * requests are answered by the error alone: they change nothing.
 */
import type { ApiName } from '../../protocol/messages/index.js';
import type { FaultHandle, RequestControls } from './request-controls.js';

/** Whose coordinator moves: a group's (classic, consumer, share or streams) or a transactional id's. */
export type CoordinatorKey = { readonly groupId: string; readonly transactionalId?: undefined } | { readonly transactionalId: string; readonly groupId?: undefined };

/** The errors a coordinator that is not (yet) serving a key answers with. */
export type CoordinatorMoveError = 'NOT_COORDINATOR' | 'COORDINATOR_LOAD_IN_PROGRESS' | 'COORDINATOR_NOT_AVAILABLE';

export interface MoveCoordinatorOptions {
  /** Moves it back after this long, in real time (default: until `restore()`). */
  readonly forMs?: number;
  /** Moves it back after answering this many requests (default: until `restore()`). */
  readonly count?: number;
  /** The error to answer with (default NOT_COORDINATOR, Kafka's answer once the coordinator moved). */
  readonly error?: CoordinatorMoveError;
}

export interface CoordinatorMove {
  /** Requests answered with the error so far. */
  readonly hits: number;
  /** Whether the coordinator is still away. */
  readonly moved: boolean;
  /** Moves the coordinator back: the key's requests are served again. */
  restore(): void;
}

/**
 * The APIs a group coordinator serves for a group. TxnOffsetCommit goes to the group's
 * coordinator (it commits into the group's offsets).
 */
const GROUP_APIS: ReadonlySet<ApiName> = new Set<ApiName>([
  'JoinGroup', 'SyncGroup', 'Heartbeat', 'LeaveGroup', 'OffsetCommit', 'OffsetFetch', 'TxnOffsetCommit',
  'ConsumerGroupHeartbeat', 'ShareGroupHeartbeat', 'StreamsGroupHeartbeat',
]);

/** The APIs a transaction coordinator serves for a transactional id (AddOffsetsToTxn names a group too, but goes here). */
const TRANSACTION_APIS: ReadonlySet<ApiName> = new Set<ApiName>(['InitProducerId', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn']);

const MOVE_ERRORS: ReadonlySet<string> = new Set<CoordinatorMoveError>(['NOT_COORDINATOR', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE']);

export function moveCoordinator(controls: RequestControls, key: CoordinatorKey, options: MoveCoordinatorOptions = {}): CoordinatorMove {
  const groupId = key.groupId;
  const transactionalId = key.transactionalId;
  if ((groupId === undefined) === (transactionalId === undefined)) throw new TypeError('moveCoordinator needs either { groupId } or { transactionalId }');
  const error = options.error ?? 'NOT_COORDINATOR';
  if (!MOVE_ERRORS.has(error)) throw new TypeError(`a moved coordinator answers NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS or COORDINATOR_NOT_AVAILABLE, not ${JSON.stringify(error)}`);
  const count = options.count ?? Infinity;
  if (!(count === Infinity || (Number.isInteger(count) && count > 0))) throw new TypeError(`count must be a positive integer or Infinity, not ${count}`);
  const forMs = options.forMs;
  if (forMs !== undefined && !(Number.isFinite(forMs) && forMs >= 0)) throw new TypeError(`forMs must be a finite number >= 0, not ${forMs}`);

  const fault: FaultHandle = groupId !== undefined
    ? controls.injectAcross(GROUP_APIS, { api: 'JoinGroup', groupId, error }, count)
    : controls.injectAcross(TRANSACTION_APIS, { api: 'InitProducerId', transactionalId: transactionalId!, error }, count);
  let restored = false;
  const timer = forMs === undefined ? undefined : setTimeout(() => restore(), forMs);
  timer?.unref();
  function restore(): void {
    restored = true;
    if (timer !== undefined) clearTimeout(timer);
    fault.remove();
  }
  return {
    get hits() {
      return fault.hits;
    },
    get moved() {
      return !restored && controls.isInjected(fault);
    },
    restore,
  };
}
