/** SyncGroup: followers park until the leader's assignment is durable. */
import { Api } from '../../protocol/messages/index.js';
import type { SyncGroupRequestData, SyncGroupResponseData } from '../../protocol/messages/sync-group.js';
import { syncGroupError } from '../../coordinator/classic/responses.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const syncGroupHandler = defineHandler<SyncGroupRequestData, SyncGroupResponseData>({
  api: Api.SyncGroup,
  authorization: authorizes({ GROUP: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.SyncGroup.request.highestVersion,
  handle(ctx, request) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return syncGroupError(ctx.apiVersion, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.syncGroup(cctx, request), (code) => syncGroupError(ctx.apiVersion, code));
  },
});
