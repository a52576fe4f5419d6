/**
 * DeleteAcls (kafka-acls --remove): every ACL each filter matches (ANY and MATCH as Kafka's
 * AclBindingFilter reads them) is removed durably and returned in that filter's result.
 * Needs ALTER on the cluster; without an authorizer every filter answers SECURITY_DISABLED.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DeleteAclsRequestData, DeleteAclsResponseData } from '../../protocol/messages/delete-acls.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { aclFilter, refuseUnknownCodes } from './acl-requests.js';
import { PatternType } from '../authorizer/acl.js';

export const deleteAclsHandler = defineHandler<DeleteAclsRequestData, DeleteAclsResponseData>({
  api: Api.DeleteAcls,
  authorization: authorizes({ CLUSTER: ['ALTER'] }),
  minVersion: 1,
  maxVersion: Api.DeleteAcls.request.highestVersion,
  // Not async: a request with an UNKNOWN code must throw before any answer (acl-requests.ts).
  handle(ctx, request) {
    const filters = request.filters.map((f) => aclFilter(f.resourceTypeFilter, f.resourceNameFilter, f.patternTypeFilter ?? PatternType.LITERAL, f.principalFilter, f.hostFilter, f.operation, f.permissionType));
    for (const f of filters) refuseUnknownCodes('DeleteAcls', [f.resourceType, f.patternType, f.operation, f.permissionType]);
    const all = (errorCode: number, errorMessage: string): DeleteAclsResponseData =>
      ({ throttleTimeMs: 0, filterResults: filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })) });
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Request requires ALTER on the cluster');
    const acls = ctx.broker.acls;
    if (acls === null) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    return acls.deleteAcls(filters).then((results) => ({
      throttleTimeMs: 0,
      filterResults: results.map((r) => ('error' in r
        ? { ...r.error, matchingAcls: [] }
        : {
          errorCode: ErrorCode.NONE, errorMessage: null,
          matchingAcls: r.deleted.map((a) => ({
            errorCode: ErrorCode.NONE, errorMessage: null, resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.patternType,
            principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType,
          })),
        })),
    }));
  },
});
