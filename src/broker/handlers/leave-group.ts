/** LeaveGroup: one member (v0-2) or a batch of members, possibly by group instance id (v3+). */
import { Api } from '../../protocol/messages/index.js';
import type { LeaveGroupRequestData, LeaveGroupResponseData } from '../../protocol/messages/leave-group.js';
import { leaveGroupResponse } from '../../coordinator/classic/responses.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const leaveGroupHandler = defineHandler<LeaveGroupRequestData, LeaveGroupResponseData>({
  api: Api.LeaveGroup,
  authorization: authorizes({ GROUP: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.LeaveGroup.request.highestVersion,
  handle(ctx, request) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return leaveGroupResponse(ctx.apiVersion, ErrorCode.GROUP_AUTHORIZATION_FAILED, []);
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.leaveGroup(cctx, request), (code) => leaveGroupResponse(ctx.apiVersion, code, []));
  },
});
