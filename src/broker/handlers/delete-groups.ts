/**
 * DeleteGroups: Empty groups and their offsets go (tombstones in `__consumer_offsets`). As
 * Kafka 4.4's GroupCoordinatorService, a share group's share state goes first: the group
 * coordinator marks its share-partitions as deleting and the share coordinator deletes their
 * state (DeleteShareGroupState); a share group whose state could not be deleted is answered
 * with that error and stays. Those answers come first, then the deleted groups', then the
 * groups the client may not DELETE.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DeleteGroupsRequestData, DeleteGroupsResponseData } from '../../protocol/messages/delete-groups.js';
import type { ShareGroupDeletionStep } from '../../coordinator/share/offsets.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';

type Result = DeleteGroupsResponseData['results'][number];

/** Kafka's deleteShareGroups and performShareGroupsDeletion: the share groups that could not go, with why. */
async function deleteShareState(ctx: RequestContext, groupIds: readonly string[]): Promise<Map<string, number>> {
  const steps = await ctx.broker.groups.submit<ReadonlyMap<string, ShareGroupDeletionStep> | number>(
    ctx, (c, cctx) => c.sharePartitionDeleteRequests(cctx, groupIds), (errorCode) => errorCode,
  );
  const errors = new Map<string, number>();
  if (typeof steps === 'number') {
    for (const groupId of groupIds) errors.set(groupId, steps);
    return errors;
  }
  await Promise.all([...steps].map(async ([groupId, step]) => {
    if (step.errorCode !== ErrorCode.NONE) {
      errors.set(groupId, step.errorCode);
      return;
    }
    if (step.deleteState === null) return;
    try {
      const answer = await ctx.broker.shareState.deleteState(step.deleteState);
      const failed = answer.results.flatMap((t) => t.partitions).find((p) => p.errorCode !== ErrorCode.NONE);
      if (failed !== undefined) errors.set(groupId, failed.errorCode);
    } catch {
      errors.set(groupId, ErrorCode.UNKNOWN_SERVER_ERROR);
    } finally {
      ctx.broker.shares.dropGroup(groupId);
    }
  }));
  return errors;
}

export const deleteGroupsHandler = defineHandler<DeleteGroupsRequestData, DeleteGroupsResponseData>({
  api: Api.DeleteGroups,
  authorization: authorizes({ GROUP: ['DELETE'] }),
  minVersion: 0,
  maxVersion: Api.DeleteGroups.request.highestVersion,
  async handle(ctx, request) {
    const groups = [...new Set(request.groupsNames)];
    const allowed = groups.filter((g) => authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, g));
    // Kafka: the groups the client may not DELETE come last, refused.
    const refused: Result[] = groups.filter((g) => !allowed.includes(g)).map((groupId) => ({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }));
    const shareErrors = allowed.length === 0 ? new Map<string, number>() : await deleteShareState(ctx, allowed);
    const failed: Result[] = [...shareErrors].map(([groupId, errorCode]) => ({ groupId, errorCode }));
    const rest = allowed.filter((g) => !shareErrors.has(g));
    const answer = rest.length === 0 && allowed.length > 0
      ? { throttleTimeMs: 0, results: [] }
      : await ctx.broker.groups.submit<DeleteGroupsResponseData>(ctx, (c, cctx) => c.deleteGroups(cctx, { ...request, groupsNames: rest }), (errorCode) => ({
        throttleTimeMs: 0,
        results: rest.map((groupId) => ({ groupId, errorCode })),
      }));
    return failed.length === 0 && refused.length === 0 ? answer : { ...answer, results: [...failed, ...answer.results, ...refused] };
  },
});
