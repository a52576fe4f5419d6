/**
 * ListTransactions (`kafka-transactions list`): transactional ids with their producer id and
 * state, filtered by state names, producer ids and (v1) how long they have been running.
 * State names this broker does not know come back in unknownStateFilters, as Kafka. Only
 * the ids the principal may DESCRIBE are listed (KafkaApis). v2 (KIP-1152) filters by a
 * regular expression the whole transactional id must match (RE2, as Kafka's; empty: none),
 * INVALID_REGULAR_EXPRESSION when it does not compile.
 */
import { Api } from '../../protocol/messages/index.js';
import type { ListTransactionsRequestData, ListTransactionsResponseData } from '../../protocol/messages/list-transactions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { STATE_NAMES } from '../../coordinator/transactions/state.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { compileRe2Pattern, InvalidPatternError } from '../../util/re2-pattern.js';

const KNOWN_STATES = new Set(Object.values(STATE_NAMES));

export const listTransactionsHandler = defineHandler<ListTransactionsRequestData, ListTransactionsResponseData>({
  api: Api.ListTransactions,
  authorization: authorizes({ TRANSACTIONAL_ID: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.ListTransactions.request.highestVersion,
  handle(ctx, request) {
    const { coordinator } = ctx.broker.transactions;
    const unknownStateFilters = request.stateFilters.filter((s) => !KNOWN_STATES.has(s));
    if (coordinator.loadInProgress) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, unknownStateFilters, transactionStates: [] };
    }
    let idPattern: RegExp | null = null;
    const pattern = request.transactionalIdPattern ?? null;
    if (pattern !== null && pattern !== '') {
      try {
        idPattern = compileRe2Pattern(pattern);
      } catch (err) {
        if (!(err instanceof InvalidPatternError)) throw err;
        return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, unknownStateFilters: [], transactionStates: [] };
      }
    }
    const filter = {
      states: request.stateFilters.filter((s) => KNOWN_STATES.has(s)),
      producerIds: request.producerIdFilters,
      durationMs: Number(request.durationFilter ?? -1n),
      idPattern,
    };
    // Only unknown state filters given: nothing can match them.
    const matches = filter.states.length === 0 && request.stateFilters.length > 0 ? [] : coordinator.list(filter, ctx.broker.clock.nowMs());
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      unknownStateFilters,
      transactionStates: matches.filter((t) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, t.transactionalId)).map((t) => ({ transactionalId: t.transactionalId, producerId: t.producerId, transactionState: t.state })),
    };
  },
});
