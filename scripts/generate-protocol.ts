/**
 * Generates src/protocol/messages/*.ts and src/protocol/coordinator-records/*.ts from
 * Apache Kafka's JSON message schemas (directory given by BROOK_KAFKA_SCHEMAS, by default
 * ../shared/kafka-protocol beside the checkout). One file per API holds its request and
 * response.
 *
 * The `__transaction_state` record schemas (TransactionLogKey, TransactionLogValue) are not
 * among those: they are read from Kafka 4.4.0's kafka-transaction-coordinator jar (Maven
 * Central; the local Maven cache's copy when present, else downloaded), checked against a
 * pinned SHA-256 so the generated files are reproducible. Likewise the APIs whose newer
 * versions Brook serves for transaction version 2 (Produce v12, TxnOffsetCommit v5) come
 * from Kafka 4.4.0's kafka-clients jar, capped below the versions that switch to topic ids.
 *
 *   npm run generate           # rewrite the generated files
 *   npm run generate:check     # fail if they differ from what the schemas give
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kebab, loadSchema, parseSchema, type RawField, type RawMessage } from './protocol-schema.js';
import { generateMessage, modelMessage, type GeneratedMessage } from './protocol-codegen.js';

/** The APIs Brook speaks, in the order the registry lists them. */
export const APIS = [
  'Produce', 'Fetch', 'ListOffsets', 'Metadata', 'OffsetCommit', 'OffsetFetch', 'FindCoordinator',
  'JoinGroup', 'Heartbeat', 'LeaveGroup', 'SyncGroup', 'DescribeGroups', 'ListGroups',
  'SaslHandshake', 'ApiVersions', 'CreateTopics', 'DeleteTopics', 'DeleteRecords', 'InitProducerId',
  'DescribeConfigs', 'AlterConfigs', 'DescribeLogDirs', 'SaslAuthenticate', 'CreatePartitions',
  'DeleteGroups', 'IncrementalAlterConfigs', 'OffsetDelete', 'DescribeCluster', 'DescribeProducers',
  'ConsumerGroupHeartbeat', 'ConsumerGroupDescribe', 'DescribeTopicPartitions',
  'DescribeAcls', 'CreateAcls', 'DeleteAcls', 'DescribeClientQuotas', 'AlterClientQuotas',
  'DescribeUserScramCredentials', 'AlterUserScramCredentials',
  'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn', 'WriteTxnMarkers', 'TxnOffsetCommit',
  'DescribeTransactions', 'ListTransactions',
] as const;

/** Payloads that are not API messages: headers and the consumer protocol. */
const PAYLOADS = ['RequestHeader', 'ResponseHeader', 'ConsumerProtocolSubscription', 'ConsumerProtocolAssignment'];
const COORDINATOR_RECORDS = [
  'OffsetCommitKey', 'OffsetCommitValue', 'GroupMetadataKey', 'GroupMetadataValue',
  // KIP-848 consumer groups (record types 3 to 8).
  'ConsumerGroupMetadataKey', 'ConsumerGroupMetadataValue',
  'ConsumerGroupPartitionMetadataKey', 'ConsumerGroupPartitionMetadataValue',
  'ConsumerGroupMemberMetadataKey', 'ConsumerGroupMemberMetadataValue',
  'ConsumerGroupTargetAssignmentMetadataKey', 'ConsumerGroupTargetAssignmentMetadataValue',
  'ConsumerGroupTargetAssignmentMemberKey', 'ConsumerGroupTargetAssignmentMemberValue',
  'ConsumerGroupCurrentMemberAssignmentKey', 'ConsumerGroupCurrentMemberAssignmentValue',
];

/** `__transaction_state` records, from the transaction coordinator's jar (see transactionJar()). */
const TRANSACTION_RECORDS = ['TransactionLogKey', 'TransactionLogValue'];
const TRANSACTION_JAR = {
  path: 'org/apache/kafka/kafka-transaction-coordinator/4.4.0/kafka-transaction-coordinator-4.4.0.jar',
  sha256: '1d5324d59776d6b7f324cfdc87647b1e88f9823332201c0324e7ae9f210d915d',
};

/**
 * APIs read from Kafka 4.4.0's kafka-clients jar instead of the schema directory, with the
 * highest version Brook generates (Produce v13 and TxnOffsetCommit v6 replace topic names
 * by topic ids).
 */
const CLIENT_JAR_APIS: Readonly<Record<string, number>> = { Produce: 12, TxnOffsetCommit: 5 };
const CLIENTS_JAR = {
  path: 'org/apache/kafka/kafka-clients/4.4.0/kafka-clients-4.4.0.jar',
  sha256: '1ab07317eb6633241392449d329dbdc5d9251e6ffc4926860f42dd966e88bdf9',
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schemaDir = process.env['BROOK_KAFKA_SCHEMAS'] ?? resolve(root, '..', 'shared', 'kafka-protocol');

interface Unit {
  file: string; // relative to root
  messages: RawMessage[];
  /** Where the schemas came from, when not the schema directory (a line under the header). */
  source?: string;
}

/**
 * The Kafka 4.4.0 kafka-transaction-coordinator jar: BROOK_KAFKA_TRANSACTION_JAR, else the
 * local Maven cache's copy, else Maven Central's, downloaded into the temp directory. Its
 * SHA-256 must be the pinned one.
 */
function transactionJar(): string {
  return mavenJar(TRANSACTION_JAR, process.env['BROOK_KAFKA_TRANSACTION_JAR']);
}

/** The Kafka 4.4.0 kafka-clients jar, found and checked as transactionJar(); BROOK_KAFKA_CLIENTS_JAR overrides. */
function clientsJar(): string {
  return mavenJar(CLIENTS_JAR, process.env['BROOK_KAFKA_CLIENTS_JAR']);
}

function mavenJar(artifact: { path: string; sha256: string }, override: string | undefined): string {
  const candidates = [override, join(homedir(), '.m2', 'repository', artifact.path)];
  let jar = candidates.find((p): p is string => p !== undefined && existsSync(p));
  if (jar === undefined) {
    jar = join(tmpdir(), artifact.path.split('/').at(-1)!);
    if (!existsSync(jar)) execFileSync('curl', ['-fsSL', '-o', jar, `https://repo1.maven.org/maven2/${artifact.path}`], { stdio: 'inherit' });
  }
  const sha256 = createHash('sha256').update(readFileSync(jar)).digest('hex');
  if (sha256 !== artifact.sha256) throw new Error(`${jar}: SHA-256 ${sha256}, expected ${artifact.sha256}`);
  return jar;
}

/**
 * A schema limited to versions up to `max`: validVersions ends there and fields that only
 * exist in later versions are left out (so the generated types do not carry them).
 */
function capVersions(message: RawMessage, max: number): RawMessage {
  const low = (spec: string | undefined): number => Number((spec ?? '0').replace(/[+].*$/, '').split('-')[0]);
  const trim = (fields: RawField[]): RawField[] => fields
    .filter((f) => f.versions === undefined || low(f.versions) <= max)
    .map((f) => (f.fields ? { ...f, fields: trim(f.fields) } : f));
  const [from] = message.validVersions.split('-');
  return {
    ...message,
    validVersions: `${from}-${max}`,
    fields: trim(message.fields),
    ...(message.commonStructs ? { commonStructs: message.commonStructs.map((c) => ({ ...c, fields: trim(c.fields) })) } : {}),
  };
}

function jarSchema(jar: string, name: string): RawMessage {
  return parseSchema(execFileSync('unzip', ['-p', jar, `common/message/${name}.json`], { encoding: 'utf8' }));
}

function units(): Unit[] {
  const msg = (name: string): RawMessage => loadSchema(join(schemaDir, 'messages', `${name}.json`));
  const rec = (name: string): RawMessage => loadSchema(join(schemaDir, 'coordinator-records', `${name}.json`));
  const txnJar = transactionJar();
  const clients = clientsJar();
  return [
    ...APIS.map((api): Unit => {
      const max = CLIENT_JAR_APIS[api];
      if (max === undefined) return { file: `src/protocol/messages/${kebab(api)}.ts`, messages: [msg(`${api}Request`), msg(`${api}Response`)] };
      return {
        file: `src/protocol/messages/${kebab(api)}.ts`,
        messages: [capVersions(jarSchema(clients, `${api}Request`), max), capVersions(jarSchema(clients, `${api}Response`), max)],
        source: `// Schema: common/message/${api}{Request,Response}.json up to v${max} in Maven Central's ${CLIENTS_JAR.path} (SHA-256 ${CLIENTS_JAR.sha256}).\n`,
      };
    }),
    ...PAYLOADS.map((name) => ({ file: `src/protocol/messages/${kebab(name)}.ts`, messages: [msg(name)] })),
    ...COORDINATOR_RECORDS.map((name) => ({
      file: `src/protocol/coordinator-records/${kebab(name)}.ts`,
      messages: [rec(name)],
    })),
    ...TRANSACTION_RECORDS.map((name) => ({
      file: `src/protocol/coordinator-records/${kebab(name)}.ts`,
      messages: [jarSchema(txnJar, name)],
      source: `// Schema: common/message/${name}.json in Maven Central's ${TRANSACTION_JAR.path} (SHA-256 ${TRANSACTION_JAR.sha256}).\n`,
    })),
  ];
}

/** Struct names used in more than one place get their message's name as a prefix. */
function collisions(all: RawMessage[]): Set<string> {
  const seen = new Map<string, number>();
  const visit = (fields: RawMessage['fields']): void => {
    for (const f of fields) {
      if (f.fields) {
        const name = f.type.replace(/^\[\]/, '');
        seen.set(name, (seen.get(name) ?? 0) + 1);
        visit(f.fields);
      }
    }
  };
  for (const m of all) {
    seen.set(m.name, (seen.get(m.name) ?? 0) + 1);
    visit(m.fields);
    for (const c of m.commonStructs ?? []) {
      seen.set(c.name, (seen.get(c.name) ?? 0) + 1);
      visit(c.fields);
    }
  }
  return new Set([...seen].filter(([, n]) => n > 1).map(([name]) => name));
}

const HEADER = '// Generated by scripts/generate-protocol.ts from Apache Kafka\'s message schemas. Do not edit.\n';

function render(unit: Unit, clash: Set<string>): { text: string; models: GeneratedMessage[] } {
  const models = unit.messages.map((raw) =>
    modelMessage(raw, (name) => (clash.has(name) && name !== raw.name ? `${raw.name}${name}` : name)),
  );
  const depth = unit.file.split('/').length - 2;
  const up = '../'.repeat(depth - 1);
  const body = models.map((m) => generateMessage(m, m.raw.apiKey ?? -1)).join('\n');
  const used = (name: string): boolean => new RegExp(`\\b${name}\\b`).test(body);
  const runtime = [
    'defineCodec', 'readArray', 'writeArray', 'readTaggedFieldCount', 'readTaggedFieldSize',
    'expectTaggedFieldEnd', 'writeUnknownTaggedFields', 'writeTaggedSection', 'taggedValue',
    'unsupported', 'nullNotAllowed', 'EMPTY_BUFFER', 'ZERO_UUID',
  ].filter(used);
  const types = ['MessageCodec', 'RawTaggedField', 'StructSchema'].filter(used).map((t) => `type ${t}`);
  const runtimePath = unit.file.includes('/messages/') ? './runtime.js' : `${up}messages/runtime.js`;
  const text = [
    HEADER + (unit.source ?? ''),
    '/* eslint-disable */',
    `import type { Reader } from '${up}primitives/reader.js';`,
    `import type { Writer } from '${up}primitives/writer.js';`,
    `import { ${[...runtime, ...types].join(', ')} } from '${runtimePath}';`,
    '',
    body,
  ].join('\n');
  return { text, models };
}

function indexFile(): string {
  const lines = [HEADER];
  for (const api of APIS) lines.push(`export * from './${kebab(api)}.js';`);
  for (const p of PAYLOADS) lines.push(`export * from './${kebab(p)}.js';`);
  lines.push(`import type { MessageCodec } from './runtime.js';`);
  for (const api of APIS) lines.push(`import { ${api}Request, ${api}Response } from './${kebab(api)}.js';`);
  lines.push('');
  lines.push('export interface ApiCodecs {');
  lines.push('  readonly name: string;');
  lines.push('  readonly apiKey: number;');
  lines.push('  // eslint-disable-next-line @typescript-eslint/no-explicit-any');
  lines.push('  readonly request: MessageCodec<any>;');
  lines.push('  // eslint-disable-next-line @typescript-eslint/no-explicit-any');
  lines.push('  readonly response: MessageCodec<any>;');
  lines.push('}');
  lines.push('');
  lines.push('/** Every API Brook has codecs for, by name, with typed request and response codecs. */');
  lines.push('export const Api = {');
  for (const api of APIS) {
    lines.push(`  ${api}: { name: '${api}', apiKey: ${api}Request.apiKey, request: ${api}Request, response: ${api}Response },`);
  }
  lines.push('} as const;');
  lines.push('');
  lines.push('export type ApiName = keyof typeof Api;');
  lines.push('');
  lines.push('/** Every API Brook has codecs for. */');
  lines.push('export const API_CODECS: readonly ApiCodecs[] = Object.values(Api);');
  lines.push('');
  lines.push('const byKey: (ApiCodecs | undefined)[] = [];');
  lines.push('for (const api of API_CODECS) byKey[api.apiKey] = api;');
  lines.push('');
  lines.push('export function apiCodecs(apiKey: number): ApiCodecs | undefined {');
  lines.push('  return byKey[apiKey];');
  lines.push('}');
  lines.push('');
  return lines.join('\n');
}

function recordsIndex(): string {
  return [
    HEADER,
    ...[...COORDINATOR_RECORDS, ...TRANSACTION_RECORDS].map((n) => `export * from './${kebab(n)}.js';`),
    "export * from './framing.js';",
    '',
  ].join('\n');
}

function main(): void {
  const check = process.argv.includes('--check');
  if (!existsSync(schemaDir)) {
    console.error(`schemas not found at ${schemaDir} (set BROOK_KAFKA_SCHEMAS)`);
    process.exit(check ? 0 : 1);
  }
  const all = units();
  const clash = collisions(all.flatMap((u) => u.messages));
  const outputs = new Map<string, string>();
  for (const unit of all) outputs.set(unit.file, render(unit, clash).text);
  outputs.set('src/protocol/messages/index.ts', indexFile());
  outputs.set('src/protocol/coordinator-records/index.ts', recordsIndex());

  let stale = 0;
  for (const [file, text] of outputs) {
    const path = join(root, file);
    const current = existsSync(path) ? readFileSync(path, 'utf8') : null;
    if (current === text) continue;
    stale++;
    if (check) console.error(`stale: ${file}`);
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  }
  if (!check) {
    // Remove generated files whose schema is no longer listed.
    for (const dir of ['src/protocol/messages', 'src/protocol/coordinator-records']) {
      for (const name of readdirSync(join(root, dir))) {
        const file = `${dir}/${name}`;
        if (outputs.has(file)) continue;
        const text = readFileSync(join(root, file), 'utf8');
        if (text.startsWith(HEADER)) rmSync(join(root, file));
      }
    }
  }
  console.log(check ? `${stale} stale generated file(s)` : `wrote ${stale} file(s) of ${outputs.size}`);
  if (check && stale > 0) process.exit(1);
}

main();
