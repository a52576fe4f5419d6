/**
 * The consumer's side of one broker's incremental fetch session (KIP-227), as Java's
 * FetchSessionHandler. The first Fetch to a broker is a full request (epoch 0) listing every
 * partition; if the broker opens a session, later requests (epochs 1, 2, ...) list only the
 * partitions that are new or whose parameters changed (a new fetch offset, mostly), and the
 * ones to forget; the broker answers only partitions with something new.
 *
 * Errors (as Java): FETCH_SESSION_ID_NOT_FOUND drops the session (the next request is a full
 * one asking for a new session); any other error of the response, an answer naming a
 * partition the request did not cover, or a failed request (connection lost, timeout)
 * makes the next request a full one that closes the session and asks for a new one. A
 * broker that opens no session (session id 0) gets full requests every time.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../cluster.js';

export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
/** The first Fetch version with sessions. */
export const FETCH_SESSION_MIN_VERSION = 7;

/** One partition's parameters in a Fetch request. */
export interface SessionPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly partitionMaxBytes: number;
  readonly currentLeaderEpoch: number;
  readonly lastFetchedEpoch: number;
  readonly logStartOffset: bigint;
}

export interface SessionRequest {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  /** Partitions to put on the wire (all of them in a full request). */
  readonly toSend: readonly SessionPartition[];
  /** Partitions the broker is to drop from the session. */
  readonly toForget: readonly SessionPartition[];
  readonly full: boolean;
}

function sameParameters(a: SessionPartition, b: SessionPartition): boolean {
  return a.fetchOffset === b.fetchOffset && a.partitionMaxBytes === b.partitionMaxBytes && a.currentLeaderEpoch === b.currentLeaderEpoch
    && a.lastFetchedEpoch === b.lastFetchedEpoch && a.logStartOffset === b.logStartOffset && a.topicId === b.topicId;
}

function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === 0x7fffffff ? 1 : epoch + 1;
}

export class FetchSessionHandler {
  private sessionId = 0;
  private epoch = INITIAL_EPOCH;
  /** The partitions the broker's session holds (as last sent), by partition key. */
  private readonly partitions = new Map<string, SessionPartition>();

  /** The session's id, 0 when there is none. */
  get id(): number {
    return this.sessionId;
  }

  /**
   * The request for `next` (every partition to fetch from this broker now, by partition
   * key); the session then holds exactly `next`. `usesTopicIds`: the request names topics by
   * id (Fetch v13+), where a topic whose id changed is forgotten under its old id.
   */
  build(next: ReadonlyMap<string, SessionPartition>, usesTopicIds: boolean): SessionRequest {
    if (this.epoch === INITIAL_EPOCH || this.epoch === FINAL_EPOCH) {
      this.partitions.clear();
      for (const [key, p] of next) this.partitions.set(key, p);
      return { sessionId: this.sessionId, sessionEpoch: this.epoch, toSend: [...next.values()], toForget: [], full: true };
    }
    const toSend: SessionPartition[] = [];
    const toForget: SessionPartition[] = [];
    for (const [key, previous] of this.partitions) {
      const wanted = next.get(key);
      if (wanted === undefined) {
        this.partitions.delete(key);
        toForget.push(previous);
      } else if (!sameParameters(previous, wanted)) {
        // A recreated topic (new id): the broker's session knows the partition by the old id.
        if (usesTopicIds && previous.topicId !== wanted.topicId && previous.topicId !== ZERO_UUID && wanted.topicId !== ZERO_UUID) toForget.push(previous);
        this.partitions.set(key, wanted);
        toSend.push(wanted);
      }
    }
    for (const [key, p] of next) {
      if (this.partitions.has(key)) continue;
      this.partitions.set(key, p);
      toSend.push(p);
    }
    return { sessionId: this.sessionId, sessionEpoch: this.epoch, toSend, toForget, full: false };
  }

  /**
   * Takes the response to the request `build` made: true when its partitions are to be
   * used. `answered` lists the partition keys the response names (undefined for one it
   * names that no request of the session covers).
   */
  handleResponse(request: SessionRequest, errorCode: number, sessionId: number, answered: readonly (string | undefined)[]): boolean {
    if (errorCode !== ErrorCode.NONE) {
      if (errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND) this.reset();
      else this.epoch = INITIAL_EPOCH;
      return false;
    }
    const unexpected = answered.some((key) => key === undefined || !this.partitions.has(key));
    if (request.full) {
      if (unexpected) {
        this.reset();
        return false;
      }
      this.sessionId = sessionId;
      this.epoch = sessionId === 0 ? INITIAL_EPOCH : nextEpoch(INITIAL_EPOCH);
      return true;
    }
    if (unexpected) {
      this.epoch = INITIAL_EPOCH;
      return false;
    }
    if (sessionId === 0) {
      // The broker closed the session (it became empty): the answer still counts.
      this.reset();
      return true;
    }
    this.epoch = nextEpoch(this.epoch);
    return true;
  }

  /** The request failed (no answer): the next one is full, closing this session. */
  handleError(): void {
    this.epoch = INITIAL_EPOCH;
  }

  /** The session's id for a closing request (epoch -1), or null without a session. */
  takeForClose(): number | null {
    const id = this.sessionId;
    this.reset();
    return id === 0 ? null : id;
  }

  private reset(): void {
    this.sessionId = 0;
    this.epoch = INITIAL_EPOCH;
  }
}
