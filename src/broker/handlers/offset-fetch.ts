/**
 * OffsetFetch: one group (v0-7) or several (v8+). Unknown topics and partitions simply have
 * no offset (-1), as in Kafka. v0 is not served, as in Kafka 4 (KIP-896), though the
 * coordinator could answer it.
 */
import { Api } from '../../protocol/messages/index.js';
import type { OffsetFetchRequestData, OffsetFetchResponseData } from '../../protocol/messages/offset-fetch.js';
import { defineHandler } from '../handler.js';

export const offsetFetchHandler = defineHandler<OffsetFetchRequestData, OffsetFetchResponseData>({
  api: Api.OffsetFetch,
  minVersion: 1,
  maxVersion: Api.OffsetFetch.request.highestVersion,
  handle(ctx, request) {
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.offsetFetch(cctx, request), (code) => offsetFetchError(ctx.apiVersion, request, code));
  },
});

/** The whole request failed: per group (v8+), at the top (v2-7) or in every partition (v0-1). */
function offsetFetchError(version: number, request: OffsetFetchRequestData, errorCode: number): OffsetFetchResponseData {
  if (version >= 8) {
    return { throttleTimeMs: 0, errorCode: 0, topics: [], groups: (request.groups ?? []).map((g) => ({ groupId: g.groupId, topics: [], errorCode })) };
  }
  if (version >= 2) return { throttleTimeMs: 0, errorCode, topics: [], groups: [] };
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    groups: [],
    topics: (request.topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode })),
    })),
  };
}
