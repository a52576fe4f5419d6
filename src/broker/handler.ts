/**
 * The contract between the connection loop and the per-API handlers (one file each in
 * handlers/). A handler gets the decoded request and returns the response body, a promise
 * of it (durable produce, long-poll fetch, parked group requests), or NO_RESPONSE
 * (acks=0 produce).
 */
import type { ApiCodecs } from '../protocol/messages/index.js';
import type { RequestHeader } from '../protocol/messages/request-header.js';
import type { BrokerContext } from './broker-context.js';
import type { SaslAuthenticator } from './sasl/sasl-authenticator.js';
import type { Authorization } from './authorization.js';

export const NO_RESPONSE: unique symbol = Symbol('no response');

/**
 * Thrown by a handler for a request Kafka's request classes refuse while parsing it (after
 * the bytes decoded): like an undecodable request, the connection closes once the responses
 * before it are out.
 */
export class UnparsableRequestError extends Error {}

export type HandlerResult<Res> = Res | Promise<Res> | typeof NO_RESPONSE;

export interface RequestContext {
  readonly broker: BrokerContext;
  readonly header: RequestHeader;
  readonly apiVersion: number;
  /** The client's address as Kafka reports it in group descriptions ("/127.0.0.1"). */
  readonly clientHost: string;
  /** The connection's principal (`User:ANONYMOUS`, or `User:<DN>` of an mTLS client), for authorization. */
  readonly principal: string;
  /** The connection's SASL state on a SASL listener (SaslHandshake, SaslAuthenticate); null on other listeners. */
  readonly sasl: SaslAuthenticator | null;
  /** The handler's `authorization`: the questions authorization.ts answers for this request. */
  readonly authorization: Authorization;
  /** Aborted when the connection closes, so parked requests can give up. */
  readonly signal: AbortSignal;
  /**
   * True once a later request on this connection has its response ready, or the connection
   * closed: responses go out in request order, so a parked request (a long-poll Fetch) should
   * answer now with what it has rather than hold that response back.
   */
  readonly mustAnswerSoon: boolean;
  /** Calls `wake` once, when `mustAnswerSoon` becomes true (replacing an earlier callback). */
  whenAnswerSoon(wake: () => void): void;
  /**
   * Runs `callback` once the response has been handed to the kernel (or its write failed),
   * after which buffers it carries may be reused. Not run when the connection closes before
   * the response is written.
   */
  onResponseWritten(callback: () => void): void;
  /**
   * Takes up no later request of this connection until `done` settles. Requests are otherwise
   * worked on as they arrive; a handler that must wait before it acts (a Produce whose
   * partitions join a transaction first) holds the connection, so the requests after it act
   * after it, as in Kafka, which reads a connection's next request only once it answered.
   */
  holdLaterRequests(done: Promise<unknown>): void;
}

export interface ApiHandler<Req = unknown, Res = unknown> {
  readonly api: ApiCodecs;
  /**
   * What the handler authorizes, as Kafka's KafkaApis/ControllerApis check the API:
   * `authorizes({ TOPIC: ['WRITE'], ... })`, or `exemptFromAuthorization(reason)` for the APIs
   * Kafka serves to anyone (ApiVersions, SASL). Enforced (authorization.ts answers nothing
   * else for the handler's requests) and required of every handler
   * (test/unit/broker-handlers-authorization.test.ts).
   */
  readonly authorization: Authorization;
  /** Versions Brook serves (a subset of what the codecs can read). */
  readonly minVersion: number;
  readonly maxVersion: number;
  /**
   * Lowest version to advertise when it differs from the lowest served. Only Produce: like
   * Kafka 4 (KAFKA-18659), Brook lists Produce from v0 because librdkafka turns compression
   * off unless Produce v0 is listed, while requests below v3 are refused.
   */
  readonly advertisedMinVersion?: number;
  handle(ctx: RequestContext, request: Req): HandlerResult<Res>;
}

/** Typed helper so each handler file states its request and response types once. */
export function defineHandler<Req, Res>(handler: ApiHandler<Req, Res>): ApiHandler<Req, Res> {
  return handler;
}
