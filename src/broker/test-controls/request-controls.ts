/**
 * The request path's test controls: hooks that see every request and response (also
 * published on node:diagnostics_channel), and injected faults (an error answer, a delay, a
 * dropped connection). Unused, they cost the request path one check per request (`active`):
 * nothing is built or published unless a hook, a channel subscriber or a fault is there.
 */
import diagnostics_channel from 'node:diagnostics_channel';
import { Api, type ApiCodecs, type ApiName } from '../../protocol/messages/index.js';
import type { MessageCodec } from '../../protocol/messages/runtime.js';
import type { RequestHeader } from '../../protocol/messages/request-header.js';
import { ErrorCode, type ErrorCodeName } from '../../protocol/errors.js';
import type { Storage } from '../../storage/types.js';
import type { Logger } from '../../util/log.js';
import { NO_RESPONSE, type HandlerResult } from '../handler.js';
import { FAULT_RESPONSES } from './fault-responses.js';
import { filtersOf, requestMatches, type FaultFilter } from './fault-targets.js';
import { mergeProduce, splitProduce } from './fault-split.js';
import { OfflinePartitions } from './offline-partitions.js';
import { AcksZeroProduceError } from '../handlers/produce.js';
import type { ProduceRequestData, ProduceResponseData } from '../../protocol/messages/index.js';

/** The diagnostics channels every broker of the process publishes its requests and responses on. */
export const BROKER_CHANNELS = Object.freeze({ request: 'brook:request', response: 'brook:response' } as const);

const requestChannel = diagnostics_channel.channel(BROKER_CHANNELS.request);
const responseChannel = diagnostics_channel.channel(BROKER_CHANNELS.response);

type DataOf<C> = C extends MessageCodec<infer T> ? T : never;
/** The decoded request of an API (`ApiRequestData<'Produce'>` is `ProduceRequestData`). */
export type ApiRequestData<A extends ApiName> = DataOf<(typeof Api)[A]['request']>;
/** The response of an API (`ApiResponseData<'Produce'>` is `ProduceResponseData`). */
export type ApiResponseData<A extends ApiName> = DataOf<(typeof Api)[A]['response']>;

/**
 * A request as the broker decoded it, of one API. `BrokerRequest` is the union over every
 * API: testing `request.api === 'Produce'` narrows `body` to ProduceRequestData.
 */
export interface BrokerRequestOf<A extends ApiName> {
  /** Kafka's API name ('Produce', 'JoinGroup', ...). */
  readonly api: A;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  readonly header: RequestHeader;
  /**
   * The decoded request (the `...RequestData` type of `brook/protocol` for the API). Its
   * buffers (a Produce's records) are views of the received bytes: copy what you keep.
   */
  readonly body: ApiRequestData<A>;
  /** The client's address, as Kafka reports it ("/127.0.0.1"). */
  readonly clientHost: string;
  /** The listener the connection came in on. */
  readonly listener: string;
  /** The broker's `host:port` for this listener (which broker, when a process runs several). */
  readonly broker: string;
}

export type BrokerRequest = { [A in ApiName]: BrokerRequestOf<A> }[ApiName];

/** A response of one API, as the broker is about to encode it; `BrokerResponse` is the union over every API. */
export interface BrokerResponseOf<A extends ApiName> {
  readonly api: A;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string | null;
  /**
   * The response (the `...ResponseData` type of `brook/protocol` for the API). Valid during
   * the call only: a Fetch's record buffers are reused once written; copy what you keep.
   */
  readonly body: ApiResponseData<A>;
  readonly request: BrokerRequestOf<A>;
  /** True when an injected fault answered the request, or some of its partitions (a Produce with a topic filter). */
  readonly injected: boolean;
  readonly broker: string;
}

export type BrokerResponse = { [A in ApiName]: BrokerResponseOf<A> }[ApiName];

/** A fault to inject: which requests it matches, and what happens to them. */
export interface FaultSpec extends FaultFilter {
  /** Kafka's API name of the requests to fault. */
  readonly api: ApiName;
  /**
   * Kafka's error name to answer with, in every place of the response that carries an error
   * (per partition, per group, per coordinator key, or at the top). The handler does not
   * run: the request changes nothing. A Produce with a `topic` filter is the exception: only
   * the partitions the filter names fail, the others are handled as usual. Omitted: the
   * request is handled as usual.
   */
  readonly error?: ErrorCodeName;
  /**
   * A further condition on the request, after the filters: the fault applies only when it
   * returns true (e.g. `(r) => r.api === 'Produce' && r.body.acks === -1`). One that throws
   * is taken as false.
   */
  readonly match?: (request: BrokerRequest) => boolean;
  /** How many matching requests to fault (default 1); Infinity until removed. */
  readonly count?: number;
  /** Holds the answer (the injected error, or the normal one) back this long, in real time. */
  readonly delayMs?: number;
  /** Closes the connection instead of answering (after `delayMs`, if given). */
  readonly drop?: boolean;
}

/** An injected fault, as injectFault returns it. */
export interface FaultHandle {
  /** Requests it matched so far. */
  readonly hits: number;
  /** Requests it will still match (Infinity for a fault without a count). */
  readonly remaining: number;
  /** Stops it matching. */
  remove(): void;
}

class InjectedFault implements FaultHandle {
  hits = 0;
  constructor(
    /** The APIs it matches: the spec's, or several for a moved coordinator. */
    readonly apis: ReadonlySet<ApiName>,
    readonly spec: FaultSpec,
    readonly errorCode: number | null,
    private readonly count: number,
    private readonly removeFrom: (fault: InjectedFault) => void,
  ) {}

  get remaining(): number {
    return this.count - this.hits;
  }

  remove(): void {
    this.removeFrom(this);
  }
}

/** What the connection knows of a request (the event is built only when someone looks). */
export interface InterceptedRequest {
  readonly api: ApiCodecs;
  readonly header: RequestHeader;
  readonly body: unknown;
  readonly clientHost: string;
  readonly listener: string;
  readonly broker: string;
}

export class RequestControls {
  private readonly requestHooks = new Set<(request: BrokerRequest) => void>();
  private readonly responseHooks = new Set<(response: BrokerResponse) => void>();
  private faults: InjectedFault[] = [];
  /** Partitions a test took offline (their handlers answer them as a broker without a leader). */
  readonly offlinePartitions: OfflinePartitions;

  constructor(private readonly storage: Storage, private readonly log: Logger) {
    this.offlinePartitions = new OfflinePartitions(storage);
  }

  /** Released by `resume()`: the requests taken while paused wait for it. */
  private pauseGate: { readonly resumed: Promise<void>; readonly release: () => void } | null = null;

  /** Whether `intercept` has anything to do: checked by the connection on every request. */
  get active(): boolean {
    return this.pauseGate !== null || this.faults.length > 0 || this.requestHooks.size > 0 || this.responseHooks.size > 0 || requestChannel.hasSubscribers || responseChannel.hasSubscribers;
  }

  onRequest(hook: (request: BrokerRequest) => void): () => void {
    this.requestHooks.add(hook);
    return () => void this.requestHooks.delete(hook);
  }

  onResponse(hook: (response: BrokerResponse) => void): () => void {
    this.responseHooks.add(hook);
    return () => void this.responseHooks.delete(hook);
  }

  injectFault(spec: FaultSpec): FaultHandle {
    const api = spec.api;
    if (!Object.hasOwn(Api, api)) throw new TypeError(`unknown API ${JSON.stringify(api)}`);
    let errorCode: number | null = null;
    if (spec.error !== undefined) {
      if (!Object.hasOwn(ErrorCode, spec.error)) throw new TypeError(`unknown Kafka error ${JSON.stringify(spec.error)}`);
      if (FAULT_RESPONSES[api] === undefined) throw new TypeError(`an injected error cannot answer ${api} (errors: ${Object.keys(FAULT_RESPONSES).join(', ')}); delayMs and drop work for every API`);
      errorCode = ErrorCode[spec.error];
    }
    if (spec.error === undefined && spec.delayMs === undefined && spec.drop !== true) throw new TypeError('a fault needs an error, a delayMs or drop');
    if (spec.error !== undefined && spec.drop === true) throw new TypeError('a fault either answers with an error or drops the connection, not both');
    const count = spec.count ?? 1;
    if (!(count === Infinity || (Number.isInteger(count) && count > 0))) throw new TypeError(`count must be a positive integer or Infinity, not ${count}`);
    if (spec.delayMs !== undefined && !(Number.isFinite(spec.delayMs) && spec.delayMs >= 0)) throw new TypeError(`delayMs must be a finite number >= 0, not ${spec.delayMs}`);
    const can = filtersOf(api);
    if (spec.partition !== undefined && spec.topic === undefined) throw new TypeError('a partition filter needs a topic');
    if (spec.topic !== undefined && !can.topic) throw new TypeError(`${api} requests name no topic to filter on`);
    if (spec.groupId !== undefined && !can.groupId) throw new TypeError(`${api} requests name no group to filter on`);
    if (spec.transactionalId !== undefined && !can.transactionalId) throw new TypeError(`${api} requests name no transactional id to filter on`);
    return this.add(new Set([api]), { ...spec }, errorCode, count);
  }

  /**
   * A fault over several APIs at once, counted together (a moved coordinator: every request
   * for its key, whichever API); built by the broker's own controls, so not validated here.
   */
  injectAcross(apis: ReadonlySet<ApiName>, spec: FaultSpec, count: number): FaultHandle {
    return this.add(apis, spec, ErrorCode[spec.error!], count);
  }

  /** Whether the fault still matches requests (not removed, used up or cleared). */
  isInjected(fault: FaultHandle): boolean {
    return this.faults.includes(fault as InjectedFault);
  }

  private add(apis: ReadonlySet<ApiName>, spec: FaultSpec, errorCode: number | null, count: number): InjectedFault {
    const fault = new InjectedFault(apis, spec, errorCode, count, (f) => {
      this.faults = this.faults.filter((g) => g !== f);
    });
    this.faults = [...this.faults, fault];
    return fault;
  }

  clearFaults(): void {
    this.faults = [];
  }

  get paused(): boolean {
    return this.pauseGate !== null;
  }

  /** From now on, requests are taken (and seen by the request hooks) but handled only after `resume()`. */
  pause(): void {
    if (this.pauseGate !== null) return;
    let release!: () => void;
    const resumed = new Promise<void>((resolve) => (release = resolve));
    this.pauseGate = { resumed, release };
  }

  /** Handles the requests taken while paused, in the order they came, and the later ones as usual. */
  resume(): void {
    const gate = this.pauseGate;
    this.pauseGate = null;
    gate?.release();
  }

  /**
   * Publishes the request, applies the first fault that matches it (injected in order), runs
   * the handler (`handle`) unless the fault answers with an error, and publishes the answer
   * once it is ready. `drop` closes the connection. Returns what the handler would.
   */
  intercept(req: InterceptedRequest, handle: (request: unknown) => HandlerResult<unknown>, drop: () => void): HandlerResult<unknown> {
    const apiName = req.api.name as ApiName;
    const version = req.header.requestApiVersion;
    const event = {
      api: apiName, apiKey: req.api.apiKey, apiVersion: version, correlationId: req.header.correlationId, clientId: req.header.clientId,
      header: req.header, body: req.body, clientHost: req.clientHost, listener: req.listener, broker: req.broker,
    } as BrokerRequest;
    for (const hook of this.requestHooks) this.call(hook, event);
    if (requestChannel.hasSubscribers) requestChannel.publish(event);
    const gate = this.pauseGate;
    if (gate === null) return this.apply(req, event, handle, drop);

    // Paused: handled once resumed. The connection keeps its answers in request order, so the
    // later requests of the connection wait behind this one.
    const later = gate.resumed.then(() => this.apply(req, event, handle, drop));
    if (event.api === 'Produce' && event.body.acks === 0) {
      // Never answered: nothing to wait for here; one that fails closes the connection, as when not paused.
      later.then(undefined, (err: unknown) => {
        if (!(err instanceof AcksZeroProduceError)) this.log.error('a Produce taken while paused failed', { err });
        drop();
      });
      return NO_RESPONSE;
    }
    // A request the fault dropped (its connection closed) is never answered.
    return later.then((result) => (result === NO_RESPONSE ? new Promise<never>(() => undefined) : result));
  }

  /** Applies the first fault that matches the request, runs the handler unless the fault answers, and publishes the answer. */
  private apply(req: InterceptedRequest, event: BrokerRequest, handle: (request: unknown) => HandlerResult<unknown>, drop: () => void): HandlerResult<unknown> {
    const apiName = event.api;
    const version = event.apiVersion;
    const fault = this.faults.length === 0 ? undefined : this.faults.find((f) => f.apis.has(apiName) && requestMatches(apiName, f.spec, req.body, version, this.storage) && this.matches(f, event));
    if (fault !== undefined) {
      fault.hits++;
      if (fault.remaining <= 0) fault.remove();
      this.log.debug('injected fault', { api: apiName, correlationId: event.correlationId, error: fault.spec.error, delayMs: fault.spec.delayMs, drop: fault.spec.drop === true });
    }
    if (fault?.spec.drop === true) {
      const delayMs = fault.spec.delayMs ?? 0;
      if (delayMs === 0) {
        drop();
        return NO_RESPONSE;
      }
      // Never answered: the responses after it wait behind it, as they would for a broker that stalls.
      setTimeout(drop, delayMs);
      return new Promise<never>(() => undefined);
    }
    let result = fault?.errorCode != null ? this.faultedAnswer(apiName, version, req.body, fault, handle) : handle(req.body);
    if (result === NO_RESPONSE) return result;
    const delayMs = fault?.spec.delayMs ?? 0;
    if (delayMs > 0) {
      const body = result;
      result = new Promise((resolve, reject) => setTimeout(() => void Promise.resolve(body).then(resolve, reject), delayMs));
    }
    if (this.responseHooks.size === 0 && !responseChannel.hasSubscribers) return result;
    const injected = fault?.errorCode != null;
    const publish = (body: unknown): unknown => {
      const response = {
        api: apiName, apiKey: event.apiKey, apiVersion: version, correlationId: event.correlationId, clientId: event.clientId,
        body, request: event, injected, broker: event.broker,
      } as BrokerResponse;
      for (const hook of this.responseHooks) this.call(hook, response);
      if (responseChannel.hasSubscribers) responseChannel.publish(response);
      return body;
    };
    return result instanceof Promise ? result.then(publish) : publish(result);
  }

  /**
   * The answer to a request the fault's error fails: built from the request alone, except a
   * Produce whose topic filter names only some of its partitions (fault-split.ts).
   */
  private faultedAnswer(api: ApiName, version: number, body: unknown, fault: InjectedFault, handle: (request: unknown) => HandlerResult<unknown>): HandlerResult<unknown> {
    const errorCode = fault.errorCode!;
    const split = api === 'Produce' ? splitProduce(body as ProduceRequestData, fault.spec, this.storage) : null;
    if (api === 'Produce' && (body as ProduceRequestData).acks === 0) {
      // Never answered, as any acks=0 Produce: Kafka closes the connection when one fails.
      const rest = split === null ? null : handle(split.rest);
      if (rest instanceof Promise) rest.catch(() => undefined);
      return Promise.reject(new AcksZeroProduceError());
    }
    if (split === null) return FAULT_RESPONSES[api]!(version, body as never, errorCode);
    const answer = handle(split.rest);
    if (answer === NO_RESPONSE) return answer;
    return answer instanceof Promise
      ? answer.then((a) => mergeProduce(split, a as ProduceResponseData, errorCode))
      : mergeProduce(split, answer as ProduceResponseData, errorCode);
  }

  private matches(fault: InjectedFault, request: BrokerRequest): boolean {
    if (fault.spec.match === undefined) return true;
    try {
      return fault.spec.match(request);
    } catch (err) {
      this.log.error('fault match function failed', { err });
      return false;
    }
  }

  /** A hook that throws is logged, not let loose on the request path. */
  private call<E>(hook: (event: E) => void, event: E): void {
    try {
      hook(event);
    } catch (err) {
      this.log.error('request hook failed', { err });
    }
  }
}
