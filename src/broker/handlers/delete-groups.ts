/** DeleteGroups: Empty groups and their offsets go (tombstones in `__consumer_offsets`). */
import { Api } from '../../protocol/messages/index.js';
import type { DeleteGroupsRequestData, DeleteGroupsResponseData } from '../../protocol/messages/delete-groups.js';
import { defineHandler } from '../handler.js';

export const deleteGroupsHandler = defineHandler<DeleteGroupsRequestData, DeleteGroupsResponseData>({
  api: Api.DeleteGroups,
  minVersion: 0,
  maxVersion: Api.DeleteGroups.request.highestVersion,
  handle(ctx, request) {
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.deleteGroups(cctx, request), (errorCode) => ({
      throttleTimeMs: 0,
      results: [...new Set(request.groupsNames)].map((groupId) => ({ groupId, errorCode })),
    }));
  },
});
