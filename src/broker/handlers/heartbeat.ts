/** Heartbeat: keeps a member's session alive; tells it when the group rebalances. */
import { Api } from '../../protocol/messages/index.js';
import type { HeartbeatRequestData, HeartbeatResponseData } from '../../protocol/messages/heartbeat.js';
import { heartbeatResponse } from '../../coordinator/classic/responses.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const heartbeatHandler = defineHandler<HeartbeatRequestData, HeartbeatResponseData>({
  api: Api.Heartbeat,
  authorization: authorizes({ GROUP: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.Heartbeat.request.highestVersion,
  handle(ctx, request) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return heartbeatResponse(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.heartbeat(cctx, request), heartbeatResponse);
  },
});
