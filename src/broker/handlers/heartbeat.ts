/** Heartbeat: keeps a member's session alive; tells it when the group rebalances. */
import { Api } from '../../protocol/messages/index.js';
import type { HeartbeatRequestData, HeartbeatResponseData } from '../../protocol/messages/heartbeat.js';
import { heartbeatResponse } from '../../coordinator/responses.js';
import { defineHandler } from '../handler.js';

export const heartbeatHandler = defineHandler<HeartbeatRequestData, HeartbeatResponseData>({
  api: Api.Heartbeat,
  minVersion: 0,
  maxVersion: Api.Heartbeat.request.highestVersion,
  handle(ctx, request) {
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.heartbeat(cctx, request), heartbeatResponse);
  },
});
