/**
 * KafkaJS's error classes (names, `retriable`, a protocol error's `type` and `code`), and the
 * translation of what Brook's client throws into them, so `catch (e) { if (e instanceof
 * KafkaJSProtocolError && e.type === 'UNKNOWN_TOPIC_OR_PARTITION') ... }` keeps working.
 * The Brook error stays reachable as `cause`.
 */
import { ErrorCode, errorInfo, KafkaProtocolError } from '../protocol/errors.js';
import { AuthenticationError, ConfigError, ConnectionError, NoBrokerReachableError, RequestTimeoutError, TimeoutError } from '../client/errors.js';

interface ErrorOptions {
  readonly retriable?: boolean;
  readonly cause?: unknown;
}

export class KafkaJSError extends Error {
  retriable: boolean;
  helpUrl: string | undefined;
  constructor(e: string | Error, { retriable = true, cause }: ErrorOptions = {}) {
    super(typeof e === 'string' ? e : e.message, cause === undefined ? undefined : { cause });
    this.name = 'KafkaJSError';
    this.retriable = retriable;
    this.helpUrl = undefined;
  }
}

export class KafkaJSNonRetriableError extends KafkaJSError {
  constructor(e: string | Error, { cause }: ErrorOptions = {}) {
    super(e, { retriable: false, cause });
    this.name = 'KafkaJSNonRetriableError';
  }
}

export class KafkaJSProtocolError extends KafkaJSError {
  /** Kafka's error name, e.g. 'UNKNOWN_TOPIC_OR_PARTITION'. */
  readonly type: string;
  readonly code: number;
  constructor(e: { message: string; type: string; code: number; retriable: boolean } | number, options: ErrorOptions = {}) {
    const info = typeof e === 'number' ? { ...errorInfo(e), type: kafkajsErrorType(e) } : e;
    super(info.message, { retriable: options.retriable ?? info.retriable, cause: options.cause });
    this.type = info.type;
    this.code = info.code;
    this.name = 'KafkaJSProtocolError';
  }
}

export class KafkaJSOffsetOutOfRange extends KafkaJSProtocolError {
  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], readonly topic?: string, readonly partition?: number) {
    super(e);
    this.name = 'KafkaJSOffsetOutOfRange';
  }
}

/** A reassignment Kafka refused, whole (no topic) or for one partition; a KafkaJSProtocolError as in KafkaJS. */
export class KafkaJSAlterPartitionReassignmentsError extends KafkaJSProtocolError {
  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], readonly topic?: string, readonly partition?: number, options: ErrorOptions = {}) {
    super(e, options);
    this.name = 'KafkaJSAlterPartitionReassignmentsError';
  }
}

export class KafkaJSMemberIdRequired extends KafkaJSProtocolError {
  readonly memberId: string | undefined;
  constructor(e: ConstructorParameters<typeof KafkaJSProtocolError>[0], { memberId }: { memberId?: string } = {}) {
    super(e);
    this.memberId = memberId;
    this.name = 'KafkaJSMemberIdRequired';
  }
}

export class KafkaJSNumberOfRetriesExceeded extends KafkaJSNonRetriableError {
  readonly retryCount: number;
  readonly retryTime: number;
  constructor(e: Error, { retryCount = 0, retryTime = 0 }: { retryCount?: number; retryTime?: number } = {}) {
    super(e, { cause: e });
    this.stack = `${this.name}\n  Caused by: ${e.stack ?? e.message}`;
    this.retryCount = retryCount;
    this.retryTime = retryTime;
    this.name = 'KafkaJSNumberOfRetriesExceeded';
  }
}

export class KafkaJSConnectionError extends KafkaJSError {
  readonly broker: string | undefined;
  constructor(e: string | Error, { broker, cause }: { broker?: string; cause?: unknown } = {}) {
    super(e, { cause });
    this.broker = broker;
    this.name = 'KafkaJSConnectionError';
  }
}

export class KafkaJSConnectionClosedError extends KafkaJSConnectionError {
  constructor(e: string | Error, options: { broker?: string; cause?: unknown } = {}) {
    super(e, options);
    this.name = 'KafkaJSConnectionClosedError';
  }
}

export class KafkaJSRequestTimeoutError extends KafkaJSError {
  constructor(e: string | Error, { cause }: ErrorOptions = {}) {
    super(e, { cause });
    this.name = 'KafkaJSRequestTimeoutError';
  }
}

/** Classes with nothing beyond a name. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ErrorClass = new (...args: any[]) => KafkaJSError;
function named<B extends ErrorClass>(base: B, name: string): B {
  const C = class extends base {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    constructor(...args: any[]) {
      super(...args);
      this.name = name;
    }
  };
  Object.defineProperty(C, 'name', { value: name });
  return C;
}

export const KafkaJSMetadataNotLoaded = named(KafkaJSError, 'KafkaJSMetadataNotLoaded');
export const KafkaJSTopicMetadataNotLoaded = named(KafkaJSMetadataNotLoaded, 'KafkaJSTopicMetadataNotLoaded');
export const KafkaJSStaleTopicMetadataAssignment = named(KafkaJSError, 'KafkaJSStaleTopicMetadataAssignment');
export const KafkaJSServerDoesNotSupportApiKey = named(KafkaJSNonRetriableError, 'KafkaJSServerDoesNotSupportApiKey');
export const KafkaJSBrokerNotFound = named(KafkaJSError, 'KafkaJSBrokerNotFound');
export const KafkaJSPartialMessageError = named(KafkaJSNonRetriableError, 'KafkaJSPartialMessageError');
export const KafkaJSSASLAuthenticationError = named(KafkaJSNonRetriableError, 'KafkaJSSASLAuthenticationError');
export const KafkaJSGroupCoordinatorNotFound = named(KafkaJSNonRetriableError, 'KafkaJSGroupCoordinatorNotFound');
export const KafkaJSNotImplemented = named(KafkaJSNonRetriableError, 'KafkaJSNotImplemented');
export const KafkaJSTimeout = named(KafkaJSNonRetriableError, 'KafkaJSTimeout');
export const KafkaJSLockTimeout = named(KafkaJSTimeout, 'KafkaJSLockTimeout');
export const KafkaJSUnsupportedMagicByteInMessageSet = named(KafkaJSNonRetriableError, 'KafkaJSUnsupportedMagicByteInMessageSet');
/** deleteGroups' failure: `groups` holds each group that was not deleted ({ groupId, errorCode, error }). */
export class KafkaJSDeleteGroupsError extends KafkaJSError {
  readonly groups: { groupId: string; errorCode: number; error: KafkaJSProtocolError }[];
  constructor(e: string | Error, groups: { groupId: string; errorCode: number; error: KafkaJSProtocolError }[] = []) {
    super(e);
    this.groups = groups;
    this.name = 'KafkaJSDeleteGroupsError';
  }
}
export const KafkaJSDeleteTopicRecordsError = named(KafkaJSError, 'KafkaJSDeleteTopicRecordsError');
export const KafkaJSInvariantViolation = named(KafkaJSNonRetriableError, 'KafkaJSInvariantViolation');
export const KafkaJSInvalidVarIntError = named(KafkaJSNonRetriableError, 'KafkaJSInvalidVarIntError');
export const KafkaJSInvalidLongError = named(KafkaJSNonRetriableError, 'KafkaJSInvalidLongError');
export const KafkaJSCreateTopicError = named(KafkaJSNonRetriableError, 'KafkaJSCreateTopicError');
export const KafkaJSAggregateError = named(KafkaJSError, 'KafkaJSAggregateError');
export const KafkaJSFetcherRebalanceError = named(KafkaJSError, 'KafkaJSFetcherRebalanceError');
export const KafkaJSNoBrokerAvailableError = named(KafkaJSError, 'KafkaJSNoBrokerAvailableError');

/** Codes KafkaJS names by their older Kafka names (applications compare `type` with these). */
const KAFKAJS_TYPE: Readonly<Record<number, string>> = {
  [-1]: 'UNKNOWN',
  6: 'NOT_LEADER_FOR_PARTITION',
  14: 'GROUP_LOAD_IN_PROGRESS',
  15: 'GROUP_COORDINATOR_NOT_AVAILABLE',
  16: 'NOT_COORDINATOR_FOR_GROUP',
};

/** KafkaJS's `type` of a Kafka error code. */
export function kafkajsErrorType(code: number): string {
  return KAFKAJS_TYPE[code] ?? errorInfo(code).name;
}

/** What Brook's client threw, as the KafkaJS error a KafkaJS application expects; KafkaJS errors pass through. */
export function toKafkaJSError(err: unknown): KafkaJSError {
  if (err instanceof KafkaJSError) return err;
  if (!(err instanceof Error)) return new KafkaJSError(String(err));
  if (err instanceof KafkaProtocolError) {
    const info = errorInfo(err.errorCode);
    const base = { message: err.detail ? `${info.message}: ${err.detail}` : info.message, type: kafkajsErrorType(info.code), code: info.code, retriable: info.retriable };
    if (err.errorCode === ErrorCode.SASL_AUTHENTICATION_FAILED) return new KafkaJSSASLAuthenticationError(saslFailure(err), { cause: err });
    if (err.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) return new KafkaJSOffsetOutOfRange(base);
    return new KafkaJSProtocolError(base, { cause: err });
  }
  if (err instanceof RequestTimeoutError) return new KafkaJSRequestTimeoutError(err.message, { cause: err });
  if (err instanceof TimeoutError) return new KafkaJSTimeout(err.message, { cause: err });
  if (err instanceof ConnectionError || err instanceof NoBrokerReachableError) return new KafkaJSConnectionError(err.message, { cause: err });
  if (err instanceof ConfigError) return new KafkaJSNonRetriableError(err.message, { cause: err });
  return new KafkaJSNonRetriableError(err.message, { cause: err });
}

/** KafkaJS's names of the SASL mechanisms in its login failure messages. */
const SASL_LABELS: Record<string, string> = { PLAIN: 'PLAIN', 'SCRAM-SHA-256': 'SCRAM SHA256', 'SCRAM-SHA-512': 'SCRAM SHA512', OAUTHBEARER: 'OAUTHBEARER' };

/** A failed login as KafkaJS words it ("SASL PLAIN authentication failed: ..."), with Kafka's reason. */
function saslFailure(err: KafkaProtocolError): string {
  const label = err instanceof AuthenticationError && err.mechanism !== undefined ? SASL_LABELS[err.mechanism] : undefined;
  return label === undefined ? err.message : `SASL ${label} authentication failed: ${err.detail ?? err.message}`;
}

/** Runs a Brook call; what it throws comes out as a KafkaJS error. */
export async function kafkajsCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toKafkaJSError(err);
  }
}
