/**
 * Authorization of requests, as Kafka's AuthHelper does it: handlers ask whether the
 * connection's principal may do an operation on a resource. With no authorizer configured
 * (the default) every answer is yes after one branch; with Kafka's StandardAuthorizer the
 * ACLs decide (authorizer/standard-authorizer.ts). Each handler declares what it asks
 * (`authorizes`, `exemptFromAuthorization`), and with an authorizer only that is answered.
 */
import type { FileSystem } from '../storage/index.js';
import type { BrokerConfig } from './config.js';
import type { RequestContext } from './handler.js';
import { AclStore } from './authorizer/acl-store.js';
import { AclOperation, ResourceType, CLUSTER_NAME, OPERATION_NAMES, RESOURCE_TYPE_NAMES } from './authorizer/acl.js';
import { clientAddress, type AuthorizerSettings } from './authorizer/standard-authorizer.js';

export { AclOperation, ResourceType, CLUSTER_NAME };

type ResourceTypeName = Exclude<keyof typeof ResourceType, 'UNKNOWN' | 'ANY'>;
type OperationName = Exclude<keyof typeof AclOperation, 'UNKNOWN' | 'ANY' | 'ALL'>;

/**
 * What a handler authorizes (`ApiHandler.authorization`): the operations it asks the
 * authorizer about, per resource type, as Kafka's KafkaApis and ControllerApis ask them for
 * the API; or why it asks nothing (`exempt`). The declaration is enforced: with an
 * authorizer, every function below refuses (UndeclaredAuthorizationError) a question the
 * request's handler did not declare, so what a handler declares is what it can check.
 */
export interface Authorization {
  /** Per ResourceType code, a bit per AclOperation code declared. */
  readonly declared: readonly number[];
  /** Why the API is served without authorization (as Kafka serves ApiVersions and SASL); null when it is not. */
  readonly exempt: string | null;
}

/** The declaration of a handler that authorizes, e.g. `authorizes({ TRANSACTIONAL_ID: ['WRITE'], GROUP: ['READ'] })`. */
export function authorizes(rules: Partial<Record<ResourceTypeName, readonly OperationName[]>>): Authorization {
  const declared: number[] = RESOURCE_TYPE_NAMES.map(() => 0);
  for (const [type, ops] of Object.entries(rules) as [ResourceTypeName, readonly OperationName[]][]) {
    for (const op of ops) declared[ResourceType[type]]! |= 1 << AclOperation[op];
  }
  if (declared.every((mask) => mask === 0)) throw new Error('authorizes() needs at least one operation; an API that checks nothing is exemptFromAuthorization(reason)');
  return { declared, exempt: null };
}

/** The declaration of a handler Kafka serves to anyone, with the reason. */
export function exemptFromAuthorization(reason: string): Authorization {
  return { declared: RESOURCE_TYPE_NAMES.map(() => 0), exempt: reason };
}

/** The declared rules as `OPERATION RESOURCE_TYPE` strings (for tests and error messages). */
export function declaredRules(authorization: Authorization): string[] {
  const rules: string[] = [];
  authorization.declared.forEach((mask, type) => {
    OPERATION_NAMES.forEach((op, code) => { if ((mask >>> code) & 1) rules.push(`${op} ${RESOURCE_TYPE_NAMES[type]}`); });
  });
  return rules;
}

/** A handler asked the authorizer a question its declaration does not have: a bug in the handler, answered by closing the connection. */
export class UndeclaredAuthorizationError extends Error {
  constructor(ctx: RequestContext, operation: number, resourceType: number) {
    const declared = ctx.authorization.exempt ?? (declaredRules(ctx.authorization).join(', ') || 'nothing');
    super(`the handler of API key ${ctx.header.requestApiKey} asked about ${OPERATION_NAMES[operation] ?? operation} on ${RESOURCE_TYPE_NAMES[resourceType] ?? resourceType}, which its authorization does not declare (declared: ${declared})`);
  }
}

/** Throws unless the request's handler declared the operation on the resource type (any operation when `operation` is null). */
function mustBeDeclared(ctx: RequestContext, operation: number | null, resourceType: number): void {
  const mask = ctx.authorization.declared[resourceType] ?? 0;
  if (operation === null ? mask === 0 : ((mask >>> operation) & 1) === 0) throw new UndeclaredAuthorizationError(ctx, operation ?? AclOperation.ANY, resourceType);
}

export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const ACL_AUTHORIZER = 'kafka.security.authorizer.AclAuthorizer';

/**
 * The authorizer's settings, or null when `authorizer.class.name` turns authorization off.
 * Throws, with Kafka's message where it has one, on a class Brook does not have and on a bad
 * `super.users` entry.
 */
export function authorizerSettings(config: BrokerConfig): AuthorizerSettings | null {
  const className = config.authorizerClassName?.trim() ?? '';
  if (className === '') return null;
  if (className === ACL_AUTHORIZER) {
    throw new Error(`authorizer.class.name=${ACL_AUTHORIZER}: that authorizer kept its ACLs in ZooKeeper and was removed in Kafka 4.0; use ${STANDARD_AUTHORIZER}`);
  }
  if (className !== STANDARD_AUTHORIZER) throw new Error(`Invalid value ${className} for configuration authorizer.class.name: Class ${className} cannot be found (Brook has ${STANDARD_AUTHORIZER})`);
  return { superUsers: parseSuperUsers(config.superUsers), allowEveryoneIfNoAclFound: config.allowEveryoneIfNoAclFound };
}

/** The ACLs (from `acls.json` in the data directory), or null when authorization is off. */
export function openAclStore(settings: AuthorizerSettings | null, dataDir: string | null, fs: FileSystem): AclStore | null {
  return settings === null ? null : AclStore.open(settings, dataDir, fs);
}

/** StandardAuthorizer.getConfiguredSuperUsers: `;`-separated, trimmed, each `Type:name`. */
export function parseSuperUsers(value: string | readonly string[]): Set<string> {
  const entries = typeof value === 'string' ? value.split(';') : value;
  const users = new Set<string>();
  for (const entry of entries) {
    const v = entry.trim();
    if (v === '') continue;
    if (!v.includes(':')) throw new Error(`expected a string in format principalType:principalName but got ${v}`);
    users.add(v);
  }
  return users;
}

/** May the request's principal do `operation` on the resource? */
export function authorize(ctx: RequestContext, operation: number, resourceType: number, resourceName: string): boolean {
  const acls = ctx.broker.acls;
  if (acls === null) return true;
  mustBeDeclared(ctx, operation, resourceType);
  return acls.authorizer.authorize(ctx.principal, clientAddress(ctx.clientHost), operation, resourceType, resourceName);
}

/** Kafka's AuthHelper.authorize(CLUSTER): the cluster operations (DESCRIBE, ALTER, CREATE, ...). */
export function authorizeCluster(ctx: RequestContext, operation: number): boolean {
  return authorize(ctx, operation, ResourceType.CLUSTER, CLUSTER_NAME);
}

/** May the principal create the topic: CREATE on the cluster or on the topic (Kafka's CreateTopics and auto-creation). */
export function mayCreateTopic(ctx: RequestContext, topic: string): boolean {
  return authorizeCluster(ctx, AclOperation.CREATE) || authorize(ctx, AclOperation.CREATE, ResourceType.TOPIC, topic);
}

/** Kafka's Authorizer.authorizeByResourceType: may the principal do `operation` on some resource of the type? */
export function authorizeByResourceType(ctx: RequestContext, operation: number, resourceType: number): boolean {
  const acls = ctx.broker.acls;
  if (acls === null) return true;
  mustBeDeclared(ctx, operation, resourceType);
  return acls.authorizer.authorizeByResourceType(ctx.principal, clientAddress(ctx.clientHost), operation, resourceType);
}

/** The names the principal may do `operation` on (Kafka's AuthHelper.filterByAuthorized). */
export function filterAuthorized(ctx: RequestContext, operation: number, resourceType: number, names: Iterable<string>): Set<string> {
  const allowed = new Set<string>();
  for (const name of names) if (!allowed.has(name) && authorize(ctx, operation, resourceType, name)) allowed.add(name);
  return allowed;
}

// ConfigResource.Type codes.
const CONFIG_TOPIC = 2, CONFIG_BROKER = 4, CONFIG_BROKER_LOGGER = 8, CONFIG_CLIENT_METRICS = 16, CONFIG_GROUP = 32;
const TOPIC_AUTHORIZATION_FAILED = 29, GROUP_AUTHORIZATION_FAILED = 30, CLUSTER_AUTHORIZATION_FAILED = 31;

/**
 * DescribeConfigs (DESCRIBE_CONFIGS) and AlterConfigs/IncrementalAlterConfigs (ALTER_CONFIGS)
 * on a config resource, as Kafka checks them: broker, broker-logger and client-metrics
 * configs on the cluster, topic and group configs on the topic or group. The error code when
 * the client may not, else null.
 */
export function configResourceError(ctx: RequestContext, operation: number, configResourceType: number, name: string): number | null {
  if (ctx.broker.acls === null) return null;
  switch (configResourceType) {
    case CONFIG_TOPIC: return authorize(ctx, operation, ResourceType.TOPIC, name) ? null : TOPIC_AUTHORIZATION_FAILED;
    case CONFIG_GROUP: return authorize(ctx, operation, ResourceType.GROUP, name) ? null : GROUP_AUTHORIZATION_FAILED;
    case CONFIG_BROKER: case CONFIG_BROKER_LOGGER: case CONFIG_CLIENT_METRICS:
      return authorizeCluster(ctx, operation) ? null : CLUSTER_AUTHORIZATION_FAILED;
    default: return null;
  }
}

const bits = (...ops: number[]): number => ops.reduce((acc, op) => acc | (1 << op), 0);
const { READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE } = AclOperation;

/** Kafka's AclEntry.supportedOperations, per resource type. */
const SUPPORTED_OPERATIONS: ReadonlyMap<number, readonly number[]> = new Map([
  [ResourceType.TOPIC, [READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS]],
  // The token operations belong to USER and DELEGATION_TOKEN resources, not to the cluster.
  [ResourceType.CLUSTER, [CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE]],
  // Kafka 4.x: group configs (KIP-848) added the config operations.
  [ResourceType.GROUP, [READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS]],
]);
const ALL_SUPPORTED = new Map([...SUPPORTED_OPERATIONS].map(([type, ops]) => [type, bits(...ops)]));

/**
 * Kafka's AuthHelper.authorizedOperations: of the operations the resource type supports, the
 * ones the principal may do, as a bit set of AclOperation codes (Metadata, DescribeCluster,
 * DescribeGroups, ...).
 */
export function authorizedOperations(ctx: RequestContext, resourceType: number, resourceName: string): number {
  const acls = ctx.broker.acls;
  if (acls === null) return ALL_SUPPORTED.get(resourceType)!;
  // Reporting, not deciding: the handler declares the resource type, not each operation.
  mustBeDeclared(ctx, null, resourceType);
  const host = clientAddress(ctx.clientHost);
  let set = 0;
  for (const op of SUPPORTED_OPERATIONS.get(resourceType)!) if (acls.authorizer.authorize(ctx.principal, host, op, resourceType, resourceName)) set |= 1 << op;
  return set;
}

/** Kafka's value for "not requested". */
export const OPERATIONS_NOT_REQUESTED = -2147483648;
