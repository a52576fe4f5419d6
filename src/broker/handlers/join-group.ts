/** JoinGroup (classic protocol): parked in the group coordinator until the join phase completes. */
import { Api } from '../../protocol/messages/index.js';
import type { JoinGroupRequestData, JoinGroupResponseData } from '../../protocol/messages/join-group.js';
import { joinGroupError } from '../../coordinator/classic/responses.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const joinGroupHandler = defineHandler<JoinGroupRequestData, JoinGroupResponseData>({
  api: Api.JoinGroup,
  authorization: authorizes({ GROUP: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.JoinGroup.request.highestVersion,
  handle(ctx, request) {
    // Kafka answers with the UNKNOWN_MEMBER_ID ("") member id (JoinGroupRequest.getErrorResponse).
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return joinGroupError(ctx.apiVersion, ErrorCode.GROUP_AUTHORIZATION_FAILED, '');
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.joinGroup(cctx, request), (code) => joinGroupError(ctx.apiVersion, code, request.memberId));
  },
});
