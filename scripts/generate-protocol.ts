/**
 * Generates src/protocol/messages/*.ts and src/protocol/coordinator-records/*.ts from
 * Apache Kafka's JSON message schemas (directory given by BROOK_KAFKA_SCHEMAS, by default
 * ../shared/kafka-protocol beside the checkout). One file per API holds its request and
 * response; one file per coordinator record schema holds its key or value. The codecs cover
 * every version the schemas define; which of them Brook serves is the handlers' (and the
 * client's) business, not the codecs'.
 *
 *   npm run generate           # rewrite the generated files
 *   npm run generate:check     # fail if they differ from what the schemas give
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { kebab, loadSchema, type RawMessage } from './protocol-schema.js';
import { generateMessage, modelMessage, type GeneratedMessage } from './protocol-codegen.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schemaDir = process.env['BROOK_KAFKA_SCHEMAS'] ?? resolve(root, '..', 'shared', 'kafka-protocol');

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
  'AlterPartitionReassignments', 'ListPartitionReassignments',
  'AddPartitionsToTxn', 'AddOffsetsToTxn', 'EndTxn', 'WriteTxnMarkers', 'TxnOffsetCommit',
  'DescribeTransactions', 'ListTransactions',
  'ShareGroupHeartbeat', 'ShareGroupDescribe', 'ShareFetch', 'ShareAcknowledge',
  'DescribeShareGroupOffsets', 'AlterShareGroupOffsets', 'DeleteShareGroupOffsets',
  'InitializeShareGroupState', 'ReadShareGroupState', 'WriteShareGroupState', 'DeleteShareGroupState',
  'ReadShareGroupStateSummary',
  'StreamsGroupHeartbeat', 'StreamsGroupDescribe', 'StreamsGroupTopologyDescriptionUpdate',
] as const;

/** Payloads that are not API messages: headers and the consumer protocol. */
const PAYLOADS = ['RequestHeader', 'ResponseHeader', 'ConsumerProtocolSubscription', 'ConsumerProtocolAssignment'];
/**
 * Every coordinator record schema (the directory's coordinator-records/, sorted): the
 * `__consumer_offsets` records of every group type, `__transaction_state` and
 * `__share_group_state`.
 */
const COORDINATOR_RECORDS = existsSync(join(schemaDir, 'coordinator-records'))
  ? readdirSync(join(schemaDir, 'coordinator-records')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort()
  : [];

/**
 * The internal topic each coordinator record belongs to, by the record's name (its key
 * schema's name without "Key"): the schemas give each record its type (the key schema's
 * apiKey) but not its topic, and types repeat across topics. Records not listed here are
 * the group coordinator's (`__consumer_offsets`).
 */
const RECORD_TOPICS: Readonly<Record<string, 'TransactionState' | 'ShareGroupState'>> = {
  TransactionLog: 'TransactionState',
  ShareSnapshot: 'ShareGroupState',
  ShareUpdate: 'ShareGroupState',
};

interface Unit {
  file: string; // relative to root
  messages: RawMessage[];
}

function units(): Unit[] {
  const msg = (name: string): RawMessage => loadSchema(join(schemaDir, 'messages', `${name}.json`));
  const rec = (name: string): RawMessage => loadSchema(join(schemaDir, 'coordinator-records', `${name}.json`));
  return [
    ...APIS.map((api): Unit => ({ file: `src/protocol/messages/${kebab(api)}.ts`, messages: [msg(`${api}Request`), msg(`${api}Response`)] })),
    ...PAYLOADS.map((name) => ({ file: `src/protocol/messages/${kebab(name)}.ts`, messages: [msg(name)] })),
    ...COORDINATOR_RECORDS.map((name) => ({
      file: `src/protocol/coordinator-records/${kebab(name)}.ts`,
      messages: [rec(name)],
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
    HEADER,
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
    ...COORDINATOR_RECORDS.map((n) => `export * from './${kebab(n)}.js';`),
    "export * from './record-types.js';",
    "export * from './framing.js';",
    '',
  ].join('\n');
}

/**
 * record-types.ts: per internal topic, each record's type (the int16 that starts its key in
 * the log: the key schema's apiKey) and its key and value codecs, so the framing code
 * looks records up instead of numbering them by hand.
 */
function recordTypes(): string {
  const records = COORDINATOR_RECORDS.filter((n) => n.endsWith('Key')).map((n) => {
    const name = n.slice(0, -'Key'.length);
    const key = loadSchema(join(schemaDir, 'coordinator-records', `${n}.json`));
    const value = loadSchema(join(schemaDir, 'coordinator-records', `${name}Value.json`));
    if (key.apiKey === undefined || value.apiKey !== key.apiKey) throw new Error(`${name}: key and value schemas must share one apiKey`);
    return { name, type: key.apiKey, topic: RECORD_TOPICS[name] ?? 'ConsumerOffsets' };
  });
  const topics: Record<string, string> = {
    ConsumerOffsets: '`__consumer_offsets` (the group coordinator\'s records)',
    TransactionState: '`__transaction_state` (the transaction coordinator\'s records)',
    ShareGroupState: '`__share_group_state` (the share coordinator\'s records)',
  };
  const lines = [HEADER, `import type { MessageCodec } from '../messages/runtime.js';`];
  for (const r of records) {
    lines.push(`import { ${r.name}Key } from './${kebab(r.name)}-key.js';`);
    lines.push(`import { ${r.name}Value } from './${kebab(r.name)}-value.js';`);
  }
  lines.push('');
  lines.push('/** A record schema pair: the key and value codecs of one record type. */');
  lines.push('export interface CoordinatorRecordCodecs {');
  lines.push('  readonly name: string;');
  lines.push('  readonly type: number;');
  lines.push('  // eslint-disable-next-line @typescript-eslint/no-explicit-any');
  lines.push('  readonly key: MessageCodec<any>;');
  lines.push('  // eslint-disable-next-line @typescript-eslint/no-explicit-any');
  lines.push('  readonly value: MessageCodec<any>;');
  lines.push('}');
  for (const [topic, about] of Object.entries(topics)) {
    const mine = records.filter((r) => r.topic === topic).sort((a, b) => a.type - b.type);
    const types = new Set(mine.map((r) => r.type));
    if (types.size !== mine.length) throw new Error(`${topic}: two records share a type`);
    lines.push('');
    lines.push(`/** The record types of ${about}. */`);
    lines.push(`export const ${topic}RecordType = {`);
    for (const r of mine) lines.push(`  ${r.name}: ${r.type},`);
    lines.push('} as const;');
    lines.push('');
    lines.push(`/** The codecs of each record type of ${about.replace(/ \(.*\)$/, '')}, by type. */`);
    lines.push(`export const ${topic.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? c : `_${c}`)).toUpperCase()}_RECORDS: ReadonlyMap<number, CoordinatorRecordCodecs> = new Map([`);
    for (const r of mine) lines.push(`  [${r.type}, { name: '${r.name}', type: ${r.type}, key: ${r.name}Key, value: ${r.name}Value }],`);
    lines.push(']);');
  }
  lines.push('');
  return lines.join('\n');
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
  outputs.set('src/protocol/coordinator-records/record-types.ts', recordTypes());

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
