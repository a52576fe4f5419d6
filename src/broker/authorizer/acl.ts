/**
 * Kafka's ACL vocabulary (org.apache.kafka.common.acl, org.apache.kafka.common.resource):
 * the wire codes of resource types, pattern types, operations and permission types, an ACL
 * binding, and the filters of DescribeAcls/DeleteAcls (AclBindingFilter).
 */

/** ResourceType codes. */
export const ResourceType = {
  UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7,
} as const;
/** PatternType codes. */
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
/** AclOperation codes. */
export const AclOperation = {
  UNKNOWN: 0, ANY: 1, ALL: 2, READ: 3, WRITE: 4, CREATE: 5, DELETE: 6, ALTER: 7, DESCRIBE: 8,
  CLUSTER_ACTION: 9, DESCRIBE_CONFIGS: 10, ALTER_CONFIGS: 11, IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13, DESCRIBE_TOKENS: 14, TWO_PHASE_COMMIT: 15,
} as const;
/** AclPermissionType codes. */
export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

/** The name of the one CLUSTER resource. */
export const CLUSTER_NAME = 'kafka-cluster';
/** A LITERAL resource name, host or principal name that matches every one. */
export const WILDCARD = '*';
export const WILDCARD_PRINCIPAL = 'User:*';

/** Kafka's `fromCode`: a code it does not know reads as UNKNOWN (0). */
function known(codes: Readonly<Record<string, number>>): (code: number) => number {
  const valid = new Set(Object.values(codes));
  return (code) => (valid.has(code) ? code : 0);
}
export const resourceTypeFromCode = known(ResourceType);
export const patternTypeFromCode = known(PatternType);
export const operationFromCode = known(AclOperation);
export const permissionTypeFromCode = known(AclPermissionType);

const names = (codes: Readonly<Record<string, number>>): string[] => {
  const out: string[] = [];
  for (const [name, code] of Object.entries(codes)) out[code] = name;
  return out;
};
export const RESOURCE_TYPE_NAMES = names(ResourceType);
export const PATTERN_TYPE_NAMES = names(PatternType);
export const OPERATION_NAMES = names(AclOperation);
export const PERMISSION_TYPE_NAMES = names(AclPermissionType);

/** One ACL: a resource pattern and an access control entry (Kafka's AclBinding). */
export interface AclBinding {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/** Kafka's AclBindingFilter: null strings and ANY codes match everything. */
export interface AclBindingFilter {
  readonly resourceType: number;
  readonly resourceName: string | null;
  readonly patternType: number;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: number;
  readonly permissionType: number;
}

/** ResourcePatternFilter.matches: MATCH finds the literal, wildcard and prefixed ACLs that apply to a name. */
function patternMatches(f: AclBindingFilter, b: AclBinding): boolean {
  if (f.resourceType !== ResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false;
  if (f.resourceName === null) return true;
  if (f.patternType === PatternType.ANY || f.patternType === b.patternType) return f.resourceName === b.resourceName;
  if (b.patternType === PatternType.LITERAL) return f.resourceName === b.resourceName || b.resourceName === WILDCARD;
  return f.resourceName.startsWith(b.resourceName);
}

/** AclBindingFilter.matches. */
export function filterMatches(f: AclBindingFilter, b: AclBinding): boolean {
  return patternMatches(f, b)
    && (f.principal === null || f.principal === b.principal)
    && (f.host === null || f.host === b.host)
    && (f.operation === AclOperation.ANY || f.operation === b.operation)
    && (f.permissionType === AclPermissionType.ANY || f.permissionType === b.permissionType);
}

/** AclControlManager.validateFilter: Kafka's message for a filter naming an UNKNOWN code, or null. */
export function filterIsUnknown(f: AclBindingFilter): string | null {
  if (f.resourceType === ResourceType.UNKNOWN || f.patternType === PatternType.UNKNOWN) return 'Unknown patternFilter.';
  if (f.operation === AclOperation.UNKNOWN || f.permissionType === AclPermissionType.UNKNOWN) return 'Unknown entryFilter.';
  return null;
}

/**
 * Kafka's checks of a new ACL (AclApis.handleCreateAcls, AclControlManager.validateNewAcl),
 * with their messages; null when it may be created. Brook also refuses a principal without
 * a type (`name` rather than `User:name`): Kafka stores it, and then every authorization of
 * that resource fails while parsing it.
 */
export function validateNewAcl(b: AclBinding): string | null {
  if (b.resourceType === ResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (b.resourceName === '') return 'Invalid empty resource name';
  if (b.resourceType === ResourceType.UNKNOWN || b.resourceType === ResourceType.ANY) return `Invalid resourceType ${RESOURCE_TYPE_NAMES[b.resourceType]}`;
  if (b.patternType !== PatternType.LITERAL && b.patternType !== PatternType.PREFIXED) return `Invalid patternType ${PATTERN_TYPE_NAMES[b.patternType]}`;
  if (b.operation === AclOperation.UNKNOWN || b.operation === AclOperation.ANY) return `Invalid operation ${OPERATION_NAMES[b.operation]}`;
  if (b.permissionType !== AclPermissionType.ALLOW && b.permissionType !== AclPermissionType.DENY) return `Invalid permissionType ${PERMISSION_TYPE_NAMES[b.permissionType]}`;
  if (!b.principal.includes(':')) return `Could not parse principal from \`${b.principal}\` (no colon is present separating the principal type from the principal name)`;
  return null;
}

/** A key that is equal for equal bindings (Kafka keeps ACLs in a set: creating one twice stores it once). */
export function aclKey(b: AclBinding): string {
  return JSON.stringify([b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permissionType]);
}
