/**
 * KafkaJS's checks of admin call arguments, made before any request, with KafkaJS's messages
 * (applications and KafkaJS's own tests match on them): a KafkaJSNonRetriableError naming
 * what is wrong. Each function checks one call's arguments as KafkaJS 2.2.4 does.
 */
import { KafkaJSNonRetriableError } from './errors.js';

const CONFIG_RESOURCE_TYPES: readonly unknown[] = [0, 2, 4, 8];

function fail(message: string): never {
  throw new KafkaJSNonRetriableError(message);
}

const isString = (v: unknown): v is string => typeof v === 'string';

function topicsArray(topics: unknown): asserts topics is unknown[] {
  if (!topics || !Array.isArray(topics)) fail(`Invalid topics array ${String(topics)}`);
}

export function checkCreateTopics(topics: unknown): void {
  topicsArray(topics);
  const names = topics.map((t) => (t as { topic?: unknown } | null)?.topic);
  if (!names.every(isString)) fail('Invalid topics array, the topic names have to be a valid string');
  if (new Set(names).size < names.length) fail('Invalid topics array, it cannot have multiple entries for the same topic');
  for (const { topic, configEntries } of topics as { topic: string; configEntries?: unknown }[]) {
    if (configEntries === null || configEntries === undefined) continue;
    if (!Array.isArray(configEntries)) fail(`Invalid configEntries for topic "${topic}", must be an array`);
    configEntries.forEach((entry: unknown, index) => {
      if (typeof entry !== 'object' || entry === null) fail(`Invalid configEntries for topic "${topic}". Entry ${index} must be an object`);
      for (const property of ['name', 'value'] as const) {
        if (!Object.hasOwn(entry, property) || !isString((entry as Record<string, unknown>)[property])) {
          fail(`Invalid configEntries for topic "${topic}". Entry ${index} must have a valid "${property}" property`);
        }
      }
    });
  }
}

export function checkCreatePartitions(topicPartitions: unknown): void {
  if (!topicPartitions || !Array.isArray(topicPartitions)) fail(`Invalid topic partitions array ${String(topicPartitions)}`);
  if (topicPartitions.length === 0) fail('Empty topic partitions array');
  const names = topicPartitions.map((t) => (t as { topic?: unknown } | null)?.topic);
  if (!names.every(isString)) fail('Invalid topic partitions array, the topic names have to be a valid string');
  if (new Set(names).size < names.length) fail('Invalid topic partitions array, it cannot have multiple entries for the same topic');
}

export function checkDeleteTopics(topics: unknown): void {
  topicsArray(topics);
  if (!topics.every(isString)) fail('Invalid topics array, the names must be a valid string');
}

/** fetchTopicOffsets, fetchTopicOffsetsByTimestamp and each topic of fetchTopicMetadata. */
export function checkTopic(topic: unknown): void {
  if (!topic || !isString(topic)) fail(`Invalid topic ${String(topic)}`);
}

export function checkFetchOffsets(groupId: unknown, topics: unknown): void {
  if (!groupId) fail(`Invalid groupId ${String(groupId)}`);
  if (topics !== undefined && topics !== null && !Array.isArray(topics)) fail('Expected topics array to be set');
}

/** setOffsets (with partitions) and resetOffsets (without). */
export function checkGroupTopic(groupId: unknown, topic: unknown, partitions?: { partitions: unknown }): void {
  if (!groupId) fail(`Invalid groupId ${String(groupId)}`);
  if (!topic) fail(`Invalid topic ${String(topic)}`);
  if (partitions && (!partitions.partitions || (partitions.partitions as unknown[]).length === 0)) fail('Invalid partitions');
}

function checkResources(resources: unknown): asserts resources is Record<string, unknown>[] {
  if (!resources || !Array.isArray(resources)) fail(`Invalid resources array ${String(resources)}`);
  if (resources.length === 0) fail('Resources array cannot be empty');
  const invalidType = (resources as Record<string, unknown>[]).find((r) => !CONFIG_RESOURCE_TYPES.includes(r['type']));
  if (invalidType) fail(`Invalid resource type ${String(invalidType['type'])}: ${JSON.stringify(invalidType)}`);
  const invalidName = (resources as Record<string, unknown>[]).find((r) => !r['name'] || !isString(r['name']));
  if (invalidName) fail(`Invalid resource name ${String(invalidName['name'])}: ${JSON.stringify(invalidName)}`);
}

export function checkDescribeConfigs(resources: unknown): void {
  checkResources(resources);
  const invalid = resources.find((r) => !Array.isArray(r['configNames']) && r['configNames'] !== null && r['configNames'] !== undefined);
  if (invalid) fail(`Invalid resource configNames ${String(invalid['configNames'])}: ${JSON.stringify(invalid)}`);
}

export function checkAlterConfigs(resources: unknown): void {
  checkResources(resources);
  const invalid = resources.find((r) => !Array.isArray(r['configEntries']));
  if (invalid) fail(`Invalid resource configEntries ${String(invalid['configEntries'])}: ${JSON.stringify(invalid)}`);
  const invalidValue = resources.find((r) => (r['configEntries'] as Record<string, unknown>[]).some((e) => !isString(e['name']) || !isString(e['value'])));
  if (invalidValue) fail(`Invalid resource config value: ${JSON.stringify(invalidValue)}`);
}

export function checkDeleteGroups(groupIds: unknown): void {
  if (!groupIds || !Array.isArray(groupIds)) fail(`Invalid groupIds array ${String(groupIds)}`);
  // KafkaJS prints the result of its test (true), not the offending id.
  if (groupIds.some((g) => !isString(g))) fail(`Invalid groupId name: ${JSON.stringify(true)}`);
}

export function checkDeleteTopicRecords(topic: unknown, partitions: unknown): void {
  if (!topic || !isString(topic)) fail(`Invalid topic "${String(topic)}"`);
  if (!partitions || (partitions as unknown[]).length === 0) fail('Invalid partitions');
}

/** Values of KafkaJS's ACL enums (AclOperationTypes, ResourcePatternTypes, AclPermissionTypes, AclResourceTypes). */
const ACL_ENUMS = [
  ['operation', 'operation type', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
  ['resourcePatternType', 'resource pattern type', [0, 1, 2, 3, 4]],
  ['permissionType', 'permission type', [0, 1, 2, 3]],
  ['resourceType', 'resource type', [0, 1, 2, 3, 4, 5, 6]],
] as const;

/** createAcls (`what` 'ACL') and deleteAcls (`what` 'ACL Filter', where the strings may be left out). */
export function checkAclEntries(entries: unknown, what: 'ACL' | 'ACL Filter'): void {
  if (!entries || !Array.isArray(entries)) fail(`Invalid ${what} array ${String(entries)}`);
  if (entries.length === 0) fail(`Empty ${what} array`);
  const optional = what === 'ACL Filter';
  for (const [field, plural] of [['principal', 'principals'], ['host', 'hosts'], ['resourceName', 'resourceNames']] as const) {
    if ((entries as Record<string, unknown>[]).some((e) => !isString(e[field]) && !(optional && e[field] === undefined))) {
      fail(`Invalid ${what} array, the ${plural} have to be a valid string`);
    }
  }
  for (const [field, name, values] of ACL_ENUMS) {
    const invalid = (entries as Record<string, unknown>[]).find((e) => !(values as readonly unknown[]).includes(e[field]));
    if (invalid) fail(`Invalid ${name} ${String(invalid[field])}: ${JSON.stringify(invalid)}`);
  }
}

export function checkDescribeAcls(filter: Record<string, unknown>): void {
  for (const [field, name] of [['principal', 'principal'], ['host', 'host'], ['resourceName', 'resourceName']] as const) {
    if (!isString(filter[field]) && filter[field] !== undefined) fail(`Invalid ${name}, the ${name} have to be a valid string`);
  }
  for (const [field, name, values] of ACL_ENUMS) {
    if (!(values as readonly unknown[]).includes(filter[field])) fail(`Invalid ${field === 'resourcePatternType' ? 'resource pattern filter type' : name} ${String(filter[field])}`);
  }
}
