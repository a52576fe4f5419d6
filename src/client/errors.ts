/**
 * The errors every client (consumer, producer, admin) can throw for reasons of their own:
 * connections, timeouts and configuration. Broker error codes arrive as KafkaProtocolError;
 * each client adds its own typed errors next to it (consumer/errors.ts, producer/errors.ts).
 */
import { BrookError, KafkaProtocolError } from '../protocol/errors.js';

/** A connection to a broker could not be opened, broke, or was closed while a request waited. */
export class ConnectionError extends BrookError {
  readonly code = 'ERR_CONNECTION' as const;
}

/** One request got no response within request.timeout.ms; the operation around it may retry. */
export class RequestTimeoutError extends BrookError {
  readonly code = 'ERR_REQUEST_TIMEOUT' as const;
}

/** The broker does not support any version of an API this client can speak. */
export class UnsupportedApiVersionError extends BrookError {
  readonly code = 'ERR_UNSUPPORTED_API_VERSION' as const;
}

/** None of the bootstrap (or known) brokers accepted a connection. */
export class NoBrokerReachableError extends BrookError {
  readonly code = 'ERR_NO_BROKER' as const;
}

/**
 * An operation did not complete within its time limit (Java's TimeoutException): the
 * call's `timeoutMs`, else default.api.timeout.ms, or close()'s timeout. What the operation
 * sent may or may not have taken effect (a commit may still have been written).
 */
export class TimeoutError extends BrookError {
  readonly code = 'ERR_TIMEOUT' as const;
}

/** An option is missing, out of range, of the wrong type, or contradicts another (Kafka's ConfigException). */
export class ConfigError extends BrookError {
  readonly code = 'ERR_CONFIG' as const;
}

/**
 * SASL authentication failed (Java's AuthenticationException and its subclasses): the
 * broker's SASL_AUTHENTICATION_FAILED, UNSUPPORTED_SASL_MECHANISM or ILLEGAL_SASL_STATE with
 * its message, or SASL_AUTHENTICATION_FAILED for a server the client refused (a SCRAM server
 * that cannot prove it knows the password). A KafkaProtocolError, so it is classified by
 * Kafka's error table: not retriable, and every call that needs the broker fails with it.
 */
export class AuthenticationError extends KafkaProtocolError {
  /** The SASL mechanism the client tried (set when the connection's login failed). */
  mechanism: string | undefined;
  constructor(errorCode: number, detail?: string) {
    super(errorCode, detail);
    this.name = 'AuthenticationError';
  }
}
