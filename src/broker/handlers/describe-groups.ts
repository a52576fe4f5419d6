/** DescribeGroups: state, protocol and members of each group, in request order. */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeGroupsRequestData, DescribeGroupsResponseData } from '../../protocol/messages/describe-groups.js';
import { OPERATIONS_NOT_REQUESTED } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const describeGroupsHandler = defineHandler<DescribeGroupsRequestData, DescribeGroupsResponseData>({
  api: Api.DescribeGroups,
  minVersion: 0,
  maxVersion: Api.DescribeGroups.request.highestVersion,
  handle(ctx, request) {
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.describeGroups(cctx, request), (errorCode) => ({
      throttleTimeMs: 0,
      groups: request.groups.map((groupId) => ({
        errorCode, groupId, groupState: '', protocolType: '', protocolData: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED,
      })),
    }));
  },
});
