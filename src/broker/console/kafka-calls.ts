/**
 * The console asks the broker what a Kafka client would ask it, through the same handlers
 * (handlers/): ListGroups, DescribeGroups, ConsumerGroupDescribe, OffsetCommit, DeleteGroups.
 * So a console request sees what the Kafka API shows the same principal (groups it may not
 * DESCRIBE hidden or refused), and a console write is the same coordinator operation, with
 * the same checks and records, as the Kafka API's.
 *
 * Each call runs with a request context of its own, as if on a connection of its own: the
 * console's principal, the browser's address, the handler's own authorization declaration.
 */
import { Api, type ApiCodecs } from '../../protocol/messages/index.js';
import type { BrokerContext } from '../broker-context.js';
import { NO_RESPONSE, type ApiHandler, type RequestContext } from '../handler.js';
import { authorizes, type Authorization } from '../authorization.js';

/** Who is asking: the principal (`User:<name>`, or `User:ANONYMOUS` without security) and from where. */
export interface ConsoleCaller {
  readonly principal: string;
  /** The browser's address as Kafka writes a client host ("/127.0.0.1"). */
  readonly clientHost: string;
}

/** The console's client id in the contexts it builds (group descriptions do not show it: the console never joins a group). */
const CLIENT_ID = 'brook-console';

/**
 * What the console asks the authorizer about itself (topics and groups listed or described
 * outside a Kafka handler): the questions Metadata, ListGroups and DescribeGroups ask.
 */
export const CONSOLE_AUTHORIZATION: Authorization = authorizes({ CLUSTER: ['DESCRIBE'], TOPIC: ['DESCRIBE'], GROUP: ['DESCRIBE'] });

let correlationIds = 0;

/** A request context for `caller`, as a connection's would be for a request of `api` at `version`. */
export function consoleRequestContext(broker: BrokerContext, caller: ConsoleCaller, api: ApiCodecs, version: number, authorization: Authorization): RequestContext {
  correlationIds = (correlationIds + 1) | 0;
  const controller = new AbortController();
  return {
    broker,
    header: { requestApiKey: api.apiKey, requestApiVersion: version, correlationId: correlationIds, clientId: CLIENT_ID },
    apiVersion: version,
    clientHost: caller.clientHost,
    principal: caller.principal,
    sasl: null,
    authorization,
    signal: controller.signal,
    // Nothing is queued behind a console call: no reason to answer early.
    mustAnswerSoon: false,
    whenAnswerSoon: () => undefined,
    // The answer is read as an object, never written to a socket: nothing to wait for.
    onResponseWritten: (callback) => queueMicrotask(callback),
    holdLaterRequests: () => undefined,
  };
}

/** The console's own context, for authorize() outside a handler (as a Metadata request would ask). */
export function consoleContext(broker: BrokerContext, caller: ConsoleCaller): RequestContext {
  return consoleRequestContext(broker, caller, Api.Metadata, 0, CONSOLE_AUTHORIZATION);
}

/**
 * Runs `request` through the broker's handler of `api`, at the handler's highest version
 * unless `version` is given, and resolves with its response.
 */
export async function callKafkaApi<Req, Res>(broker: BrokerContext, caller: ConsoleCaller, api: ApiCodecs, request: Req, version?: number): Promise<Res> {
  const handler = broker.handlers.get(api.apiKey) as ApiHandler<Req, Res> | undefined;
  if (handler === undefined) throw new Error(`the broker has no handler of ${api.name}`);
  const v = Math.min(Math.max(version ?? handler.maxVersion, handler.minVersion), handler.maxVersion);
  const ctx = consoleRequestContext(broker, caller, api, v, handler.authorization);
  const answer = await handler.handle(ctx, request);
  if (answer === NO_RESPONSE) throw new Error(`${api.name} gave no response`);
  return answer;
}
