/** DeleteGroups: Empty groups and their offsets go (tombstones in `__consumer_offsets`). */
import { Api } from '../../protocol/messages/index.js';
import type { DeleteGroupsRequestData, DeleteGroupsResponseData } from '../../protocol/messages/delete-groups.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

export const deleteGroupsHandler = defineHandler<DeleteGroupsRequestData, DeleteGroupsResponseData>({
  api: Api.DeleteGroups,
  authorization: authorizes({ GROUP: ['DELETE'] }),
  minVersion: 0,
  maxVersion: Api.DeleteGroups.request.highestVersion,
  handle(ctx, request) {
    const groups = [...new Set(request.groupsNames)];
    const allowed = groups.filter((g) => authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, g));
    // Kafka: the groups the client may not DELETE come last, refused.
    const refused = groups.filter((g) => !allowed.includes(g)).map((groupId) => ({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }));
    return ctx.broker.groups
      .submit<DeleteGroupsResponseData>(ctx, (c, cctx) => c.deleteGroups(cctx, { ...request, groupsNames: allowed }), (errorCode) => ({
        throttleTimeMs: 0,
        results: allowed.map((groupId) => ({ groupId, errorCode })),
      }))
      .then((answer) => (refused.length === 0 ? answer : { ...answer, results: [...answer.results, ...refused] }));
  },
});
