/** ListGroups: every group this broker coordinates (v4+ filtered by state, v5+ by type). */
import { Api } from '../../protocol/messages/index.js';
import type { ListGroupsRequestData, ListGroupsResponseData } from '../../protocol/messages/list-groups.js';
import { defineHandler } from '../handler.js';

export const listGroupsHandler = defineHandler<ListGroupsRequestData, ListGroupsResponseData>({
  api: Api.ListGroups,
  minVersion: 0,
  maxVersion: Api.ListGroups.request.highestVersion,
  handle(ctx, request) {
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.listGroups(cctx, request), (errorCode) => ({ throttleTimeMs: 0, errorCode, groups: [] }));
  },
});
