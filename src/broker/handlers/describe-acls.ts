/**
 * DescribeAcls (kafka-acls --list): the ACLs the filter matches, grouped by resource pattern,
 * as Kafka's AclApis answers. Needs DESCRIBE on the cluster; without an authorizer Kafka
 * answers SECURITY_DISABLED.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeAclsRequestData, DescribeAclsResponseData, DescribeAclsResource } from '../../protocol/messages/describe-acls.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { aclFilter, refuseUnknownCodes } from './acl-requests.js';
import { PatternType } from '../authorizer/acl.js';

export const describeAclsHandler = defineHandler<DescribeAclsRequestData, DescribeAclsResponseData>({
  api: Api.DescribeAcls,
  authorization: authorizes({ CLUSTER: ['DESCRIBE'] }),
  minVersion: 1,
  maxVersion: Api.DescribeAcls.request.highestVersion,
  handle(ctx, request) {
    const filter = aclFilter(request.resourceTypeFilter, request.resourceNameFilter, request.patternTypeFilter ?? PatternType.LITERAL, request.principalFilter, request.hostFilter, request.operation, request.permissionType);
    refuseUnknownCodes('DescribeAcls', [filter.resourceType, filter.patternType, filter.operation, filter.permissionType]);
    const fail = (errorCode: number, errorMessage: string): DescribeAclsResponseData => ({ throttleTimeMs: 0, errorCode, errorMessage, resources: [] });
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Request requires DESCRIBE on the cluster');
    const acls = ctx.broker.acls;
    if (acls === null) return fail(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured on the broker');
    const byPattern = new Map<string, DescribeAclsResource>();
    for (const acl of acls.authorizer.acls(filter)) {
      const key = JSON.stringify([acl.resourceType, acl.resourceName, acl.patternType]);
      let resource = byPattern.get(key);
      if (resource === undefined) {
        resource = { resourceType: acl.resourceType, resourceName: acl.resourceName, patternType: acl.patternType, acls: [] };
        byPattern.set(key, resource);
      }
      resource.acls.push({ principal: acl.principal, host: acl.host, operation: acl.operation, permissionType: acl.permissionType });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, resources: [...byPattern.values()] };
  },
});
