/** What the three ACL handlers share: reading Kafka's request fields into filters and bindings. */
import { UnparsableRequestError } from '../handler.js';
import { operationFromCode, patternTypeFromCode, permissionTypeFromCode, resourceTypeFromCode, type AclBindingFilter } from '../authorizer/acl.js';

/** The request's filter with Kafka's `fromCode` readings (a code it does not know is UNKNOWN). */
export function aclFilter(
  resourceType: number, resourceName: string | null, patternType: number, principal: string | null, host: string | null, operation: number, permissionType: number,
): AclBindingFilter {
  return {
    resourceType: resourceTypeFromCode(resourceType), resourceName, patternType: patternTypeFromCode(patternType),
    principal, host, operation: operationFromCode(operation), permissionType: permissionTypeFromCode(permissionType),
  };
}

/**
 * Kafka's CreateAcls/DescribeAcls/DeleteAcls request classes refuse UNKNOWN codes while the
 * request is being parsed, and a request that cannot be parsed closes the connection. The
 * connection loop does the same with an UnparsableRequestError.
 */
export function refuseUnknownCodes(api: string, codes: readonly number[]): void {
  if (codes.includes(0)) throw new UnparsableRequestError(`${api} request contains UNKNOWN elements`);
}
