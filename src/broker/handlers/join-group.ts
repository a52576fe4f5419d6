/** JoinGroup (classic protocol): parked in the group coordinator until the join phase completes. */
import { Api } from '../../protocol/messages/index.js';
import type { JoinGroupRequestData, JoinGroupResponseData } from '../../protocol/messages/join-group.js';
import { joinGroupError } from '../../coordinator/responses.js';
import { defineHandler } from '../handler.js';

export const joinGroupHandler = defineHandler<JoinGroupRequestData, JoinGroupResponseData>({
  api: Api.JoinGroup,
  minVersion: 0,
  maxVersion: Api.JoinGroup.request.highestVersion,
  handle(ctx, request) {
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.joinGroup(cctx, request), (code) => joinGroupError(ctx.apiVersion, code, request.memberId));
  },
});
