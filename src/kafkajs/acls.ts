/**
 * KafkaJS's ACL admin calls (createAcls, describeAcls, deleteAcls) in its shapes, sent with
 * Brook's cluster connections (Brook's Admin has no ACL calls of its own). Any broker
 * answers them: a KRaft broker forwards ACL changes to the controller.
 */
import type { Admin } from '../client/admin/index.js';
import { Api } from '../protocol/messages/index.js';
import { KafkaProtocolError } from '../protocol/errors.js';
import { KafkaJSNonRetriableError } from './errors.js';

export interface AclEntry {
  resourceType: number;
  resourceName: string;
  resourcePatternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface AclFilter {
  resourceType: number;
  resourceName?: string | null;
  resourcePatternType: number;
  principal?: string | null;
  host?: string | null;
  operation: number;
  permissionType: number;
}

function filter(f: AclFilter): { resourceTypeFilter: number; resourceNameFilter: string | null; patternTypeFilter: number; principalFilter: string | null; hostFilter: string | null; operation: number; permissionType: number } {
  return {
    resourceTypeFilter: f.resourceType, resourceNameFilter: f.resourceName ?? null, patternTypeFilter: f.resourcePatternType,
    principalFilter: f.principal ?? null, hostFilter: f.host ?? null, operation: f.operation, permissionType: f.permissionType,
  };
}

export async function createAcls(admin: Admin, acl: AclEntry[]): Promise<true> {
  if (!Array.isArray(acl) || acl.length === 0) throw new KafkaJSNonRetriableError(`Invalid ACL array ${String(acl)}`);
  const connection = await admin.cluster.anyConnection();
  const response = await connection.request(Api.CreateAcls, {
    creations: acl.map((a) => ({
      resourceType: a.resourceType, resourceName: a.resourceName, resourcePatternType: a.resourcePatternType,
      principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType,
    })),
  });
  const failed = response.results.find((r) => r.errorCode !== 0);
  if (failed) throw new KafkaProtocolError(failed.errorCode, failed.errorMessage ?? undefined);
  return true;
}

export async function describeAcls(admin: Admin, f: AclFilter): Promise<{ resources: { resourceType: number; resourceName: string; resourcePatternType: number; acls: { principal: string; host: string; operation: number; permissionType: number }[] }[] }> {
  const connection = await admin.cluster.anyConnection();
  const response = await connection.request(Api.DescribeAcls, filter(f));
  if (response.errorCode !== 0) throw new KafkaProtocolError(response.errorCode, response.errorMessage ?? undefined);
  return {
    resources: response.resources.map((r) => ({
      resourceType: r.resourceType, resourceName: r.resourceName, resourcePatternType: r.patternType,
      acls: r.acls.map((a) => ({ principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType })),
    })),
  };
}

export async function deleteAcls(admin: Admin, filters: AclFilter[]): Promise<{ filterResponses: { errorCode: number; errorMessage: string | null; matchingAcls: (AclEntry & { errorCode: number; errorMessage: string | null })[] }[] }> {
  if (!Array.isArray(filters) || filters.length === 0) throw new KafkaJSNonRetriableError(`Invalid ACL Filter array ${String(filters)}`);
  const connection = await admin.cluster.anyConnection();
  const response = await connection.request(Api.DeleteAcls, { filters: filters.map(filter) });
  return {
    filterResponses: response.filterResults.map((r) => ({
      errorCode: r.errorCode, errorMessage: r.errorMessage,
      matchingAcls: r.matchingAcls.map((m) => ({
        errorCode: m.errorCode, errorMessage: m.errorMessage, resourceType: m.resourceType, resourceName: m.resourceName, resourcePatternType: m.patternType,
        principal: m.principal, host: m.host, operation: m.operation, permissionType: m.permissionType,
      })),
    })),
  };
}
