/** DescribeGroups: state, protocol and members of each group, in request order. */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeGroupsRequestData, DescribeGroupsResponseData } from '../../protocol/messages/describe-groups.js';
import { OPERATIONS_NOT_REQUESTED, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizedOperations } from '../authorization.js';

export const describeGroupsHandler = defineHandler<DescribeGroupsRequestData, DescribeGroupsResponseData>({
  api: Api.DescribeGroups,
  authorization: authorizes({ GROUP: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.DescribeGroups.request.highestVersion,
  handle(ctx, request) {
    const failed = (groupId: string, errorCode: number): DescribeGroupsResponseData['groups'][number] =>
      ({ errorCode, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED });
    // Kafka: the groups the client may not DESCRIBE come first, refused; the coordinator describes the rest.
    const refused: DescribeGroupsResponseData['groups'] = [];
    const allowed: string[] = [];
    for (const groupId of request.groups) {
      if (authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) allowed.push(groupId);
      else refused.push(failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED));
    }
    const withOperations = ctx.apiVersion >= 3 && request.includeAuthorizedOperations === true && ctx.broker.acls !== null;
    return ctx.broker.groups
      .submit<DescribeGroupsResponseData>(ctx, (c, cctx) => c.describeGroups(cctx, { ...request, groups: allowed }), (errorCode) => ({
        throttleTimeMs: 0,
        groups: allowed.map((groupId) => failed(groupId, errorCode)),
      }))
      .then((answer) => {
        if (withOperations) {
          for (const g of answer.groups) if (g.errorCode === ErrorCode.NONE) g.authorizedOperations = authorizedOperations(ctx, ResourceType.GROUP, g.groupId);
        }
        return refused.length === 0 ? answer : { ...answer, groups: [...refused, ...answer.groups] };
      });
  },
});
