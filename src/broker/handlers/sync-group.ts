/** SyncGroup: followers park until the leader's assignment is durable. */
import { Api } from '../../protocol/messages/index.js';
import type { SyncGroupRequestData, SyncGroupResponseData } from '../../protocol/messages/sync-group.js';
import { syncGroupError } from '../../coordinator/responses.js';
import { defineHandler } from '../handler.js';

export const syncGroupHandler = defineHandler<SyncGroupRequestData, SyncGroupResponseData>({
  api: Api.SyncGroup,
  minVersion: 0,
  maxVersion: Api.SyncGroup.request.highestVersion,
  handle(ctx, request) {
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.syncGroup(cctx, request), (code) => syncGroupError(ctx.apiVersion, code));
  },
});
