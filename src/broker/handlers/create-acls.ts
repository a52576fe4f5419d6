/**
 * CreateAcls (kafka-acls --add): Kafka's AclApis and controller checks per creation
 * (INVALID_REQUEST with their messages), then the valid ones are stored durably
 * (authorizer/acl-store.ts). Needs ALTER on the cluster; without an authorizer every
 * creation answers SECURITY_DISABLED.
 */
import { Api } from '../../protocol/messages/index.js';
import type { CreateAclsRequestData, CreateAclsResponseData } from '../../protocol/messages/create-acls.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { aclFilter, refuseUnknownCodes } from './acl-requests.js';
import { PatternType } from '../authorizer/acl.js';
import type { AclBinding } from '../authorizer/acl.js';

export const createAclsHandler = defineHandler<CreateAclsRequestData, CreateAclsResponseData>({
  api: Api.CreateAcls,
  authorization: authorizes({ CLUSTER: ['ALTER'] }),
  minVersion: 1,
  maxVersion: Api.CreateAcls.request.highestVersion,
  // Not async: a request with an UNKNOWN code must throw before any answer (acl-requests.ts).
  handle(ctx, request) {
    const bindings: AclBinding[] = request.creations.map((c) => {
      const f = aclFilter(c.resourceType, c.resourceName, c.resourcePatternType ?? PatternType.LITERAL, c.principal, c.host, c.operation, c.permissionType);
      return { ...f, resourceName: c.resourceName, principal: c.principal, host: c.host };
    });
    for (const b of bindings) refuseUnknownCodes('CreateAcls', [b.resourceType, b.patternType, b.operation, b.permissionType]);
    const all = (errorCode: number, errorMessage: string): CreateAclsResponseData =>
      ({ throttleTimeMs: 0, results: bindings.map(() => ({ errorCode, errorMessage })) });
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Request requires ALTER on the cluster');
    const acls = ctx.broker.acls;
    if (acls === null) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    return acls.createAcls(bindings).then((results) => ({ throttleTimeMs: 0, results: results.map((r) => r ?? { errorCode: ErrorCode.NONE, errorMessage: null }) }));
  },
});
