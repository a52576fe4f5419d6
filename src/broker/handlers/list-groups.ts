/** ListGroups: every group this broker coordinates (v4+ filtered by state, v5+ by type). */
import { Api } from '../../protocol/messages/index.js';
import type { ListGroupsRequestData, ListGroupsResponseData } from '../../protocol/messages/list-groups.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, authorizeCluster, authorizes } from '../authorization.js';

export const listGroupsHandler = defineHandler<ListGroupsRequestData, ListGroupsResponseData>({
  api: Api.ListGroups,
  authorization: authorizes({ CLUSTER: ['DESCRIBE'], GROUP: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.ListGroups.request.highestVersion,
  handle(ctx, request) {
    // Kafka: every group with DESCRIBE on the cluster, otherwise those the client may DESCRIBE.
    const all = authorizeCluster(ctx, AclOperation.DESCRIBE);
    return ctx.broker.groups
      .submit<ListGroupsResponseData>(ctx, (c, cctx) => c.listGroups(cctx, request), (errorCode) => ({ throttleTimeMs: 0, errorCode, groups: [] }))
      .then((answer) => (all ? answer : { ...answer, groups: answer.groups.filter((g) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId)) }));
  },
});
