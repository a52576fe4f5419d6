/**
 * Turns one schema file into TypeScript: interfaces, a schema descriptor, and straight
 * `read`/`write` functions with the version conditions resolved at generation time
 * wherever the schema allows, so the hot path does no schema interpretation.
 */
import {
  MAX_VERSION, PRIMITIVES, intersect, lowerFirst, parseRange,
  type Range, type RawField, type RawMessage,
} from './protocol-schema.js';

interface Field {
  name: string; // camelCase property
  raw: RawField;
  versions: Range; // within the enclosing struct's versions
  nullable: Range;
  tagged: Range;
  flexible: Range;
  tag: number | null;
  type: Type;
}

type Type =
  | { kind: 'primitive'; name: string }
  | { kind: 'struct'; struct: Struct }
  | { kind: 'array'; element: Type };

interface Struct {
  tsName: string;
  schemaName: string;
  range: Range; // versions the struct can appear in
  flexible: Range; // the message's flexible versions: where the struct has a tag section
  fields: Field[];
  needsIsDefault: boolean;
}

export interface GeneratedMessage {
  codecName: string; // e.g. JoinGroupRequest
  dataType: string; // e.g. JoinGroupRequestData
  structs: Struct[]; // dependencies first; the top-level struct last
  raw: RawMessage;
  range: [number, number];
  flexibleFrom: number | null;
}

/** Builds the struct tree of one message; `rename` resolves struct names that collide across files. */
export function modelMessage(raw: RawMessage, rename: (schemaName: string) => string): GeneratedMessage {
  const range = parseRange(raw.validVersions) as [number, number];
  const messageFlexible = parseRange(raw.flexibleVersions);
  const common = new Map((raw.commonStructs ?? []).map((s) => [s.name, s]));
  const structs: Struct[] = [];
  const built = new Map<string, Struct>();

  const buildStruct = (schemaName: string, tsName: string, rawFields: RawField[], structRange: Range): Struct => {
    const struct: Struct = { tsName, schemaName, range: structRange, flexible: messageFlexible, fields: [], needsIsDefault: false };
    built.set(schemaName, struct);
    for (const rf of rawFields) {
      // A tagged field may leave out `versions`: it exists in its tagged versions (as Kafka's FieldSpec).
      const versions = intersect(parseRange(rf.versions ?? rf.taggedVersions), structRange);
      if (versions === null) continue;
      const tagged = intersect(parseRange(rf.taggedVersions), versions);
      if (tagged !== null && tagged[0] !== versions[0]) {
        throw new Error(`${raw.name}.${rf.name}: tagged in only part of its versions`);
      }
      struct.fields.push({
        name: lowerFirst(rf.name),
        raw: rf,
        versions,
        nullable: intersect(parseRange(rf.nullableVersions), versions),
        tagged,
        flexible: rf.flexibleVersions !== undefined ? parseRange(rf.flexibleVersions) : messageFlexible,
        tag: rf.tag ?? null,
        type: resolveType(rf.type, rf, versions),
      });
    }
    structs.push(struct);
    return struct;
  };

  const resolveType = (type: string, rf: RawField, versions: Range): Type => {
    if (type.startsWith('[]')) return { kind: 'array', element: resolveType(type.slice(2), rf, versions) };
    if (PRIMITIVES.has(type)) return { kind: 'primitive', name: type };
    const existing = built.get(type);
    if (existing) return { kind: 'struct', struct: existing };
    if (rf.fields) return { kind: 'struct', struct: buildStruct(type, rename(type), rf.fields, versions) };
    const shared = common.get(type);
    if (!shared) throw new Error(`${raw.name}: unknown type ${type}`);
    return { kind: 'struct', struct: buildStruct(type, rename(type), shared.fields, range) };
  };

  const dataType = raw.type === 'data' || raw.type === 'header' || raw.type === 'coordinator-key' || raw.type === 'coordinator-value' ? raw.name : `${raw.name}Data`;
  buildStruct(raw.name, dataType, raw.fields, range);
  markIsDefault(structs);
  return {
    codecName: raw.name,
    dataType,
    structs,
    raw,
    range,
    flexibleFrom: messageFlexible ? Math.max(messageFlexible[0], range[0]) : null,
  };
}

/** Structs that are tagged values, or are nested in one, need a deep "is default" check. */
function markIsDefault(structs: Struct[]): void {
  const mark = (type: Type): void => {
    if (type.kind === 'array') mark(type.element);
    else if (type.kind === 'struct' && !type.struct.needsIsDefault) {
      type.struct.needsIsDefault = true;
      for (const f of type.struct.fields) mark(f.type);
    }
  };
  for (const s of structs) {
    for (const f of s.fields) if (f.tagged !== null || !f.raw.ignorable) mark(f.type);
  }
}

// ---------------------------------------------------------------------------------------
// Expressions

function tsType(f: Field): string {
  const base = tsTypeOf(f.type);
  return f.nullable !== null || (f.raw.type === 'records') ? `${base} | null` : base;
}

function tsTypeOf(t: Type): string {
  if (t.kind === 'array') {
    const inner = tsTypeOf(t.element);
    return inner.includes(' ') ? `(${inner})[]` : `${inner}[]`;
  }
  if (t.kind === 'struct') return t.struct.tsName;
  switch (t.name) {
    case 'bool': return 'boolean';
    case 'int64': return 'bigint';
    case 'string': case 'uuid': return 'string';
    case 'bytes': case 'records': return 'Buffer';
    default: return 'number';
  }
}

function defaultValue(f: Field): string {
  const d = f.raw.default;
  if (d === 'null') return 'null';
  const t = f.type;
  if (t.kind === 'array') return '[]';
  if (t.kind === 'struct') return `default${t.struct.tsName}()`;
  switch (t.name) {
    case 'bool': return String(d === true || d === 'true');
    case 'int64': return `${d === undefined || d === '' ? 0n : BigInt(d)}n`;
    case 'string': return JSON.stringify(d ?? '');
    case 'uuid': return 'ZERO_UUID';
    case 'bytes': return 'EMPTY_BUFFER';
    case 'records': return 'null';
    default: return String(d === undefined || d === '' ? 0 : Number(d));
  }
}

/** The default as a plain value for the exported schema descriptor. */
function defaultLiteral(f: Field): string {
  const d = f.raw.default;
  if (d === undefined) return 'undefined';
  if (d === 'null') return 'null';
  if (f.type.kind === 'primitive') {
    if (f.type.name === 'int64') return `${BigInt(d)}n`;
    if (f.type.name === 'bool') return String(d === true || d === 'true');
    if (f.type.name === 'string') return JSON.stringify(String(d));
    if (f.type.name !== 'uuid' && f.type.name !== 'bytes') return String(Number(d));
  }
  return JSON.stringify(d);
}

function isDefaultExpr(f: Field, e: string): string {
  if (f.raw.default === 'null' || (f.type.kind === 'primitive' && f.type.name === 'records')) return `${e} === null`;
  const t = f.type;
  const orNull = f.nullable !== null;
  if (t.kind === 'array') return orNull ? `(${e} !== null && ${e}.length === 0)` : `${e}.length === 0`;
  if (t.kind === 'struct') return orNull ? `(${e} !== null && isDefault${t.struct.tsName}(${e}))` : `isDefault${t.struct.tsName}(${e})`;
  if (t.name === 'bytes') return orNull ? `(${e} !== null && ${e}.length === 0)` : `${e}.length === 0`;
  return `${e} === ${defaultValue(f)}`;
}

/**
 * The local a read function keeps a field in: the field's own name, unless that is one of
 * the function's own identifiers (a record's `Version` field, say).
 */
const READ_LOCALS = new Set(['r', 'version', 'result', 'unknownTaggedFields', 'count', 'tag', 'size', 'end', 'i']);
function readLocal(name: string): string {
  return READ_LOCALS.has(name) ? `${name}Field` : name;
}

type Mode = 'always' | 'never' | 'mixed';

function mode(within: Range, property: Range): Mode {
  if (within === null) return 'never';
  const inside = intersect(within, property);
  if (inside === null) return 'never';
  if (inside[0] === within[0] && inside[1] === within[1]) return 'always';
  return 'mixed';
}

function rangeCond(r: [number, number], within: Range): string {
  const parts: string[] = [];
  if (within === null || r[0] > within[0]) parts.push(`version >= ${r[0]}`);
  if (r[1] < MAX_VERSION && (within === null || r[1] < within[1])) parts.push(`version <= ${r[1]}`);
  return parts.join(' && ');
}

function choose(m: Mode, cond: string, yes: string, no: string): string {
  return m === 'always' ? yes : m === 'never' ? no : `(${cond} ? ${yes} : ${no})`;
}

interface Ctx {
  flex: Mode;
  flexCond: string;
  nullable: Mode;
  nullCond: string;
  /**
   * A tagged field's value: Kafka's generator marks a nullable struct there with an unsigned
   * varint (0: null, 1: present) instead of the int8 (-1 / 1) it uses elsewhere.
   */
  tagged?: boolean;
}

function fieldCtx(f: Field): Ctx {
  const flexible = intersect(f.flexible, f.versions);
  const nullable = f.nullable;
  return {
    flex: mode(f.versions, f.flexible),
    flexCond: flexible ? rangeCond(flexible, f.versions) || 'true' : 'false',
    nullable: mode(f.versions, nullable),
    nullCond: nullable ? rangeCond(nullable, f.versions) || 'true' : 'false',
  };
}

const READ_PRIMITIVE: Record<string, string> = {
  bool: 'r.readBool()', int8: 'r.readInt8()', int16: 'r.readInt16()', uint16: 'r.readUInt16()',
  int32: 'r.readInt32()', uint32: 'r.readUInt32()', int64: 'r.readInt64()', float64: 'r.readFloat64()',
  uuid: 'r.readUuid()',
};
const WRITE_PRIMITIVE: Record<string, string> = {
  bool: 'writeBool', int8: 'writeInt8', int16: 'writeInt16', uint16: 'writeUInt16',
  int32: 'writeInt32', uint32: 'writeUInt32', int64: 'writeInt64', float64: 'writeFloat64',
  uuid: 'writeUuid',
};

/** Name stems of the Reader/Writer methods for length-prefixed types. */
function lengthPrefixed(name: string): string | null {
  if (name === 'string') return 'String';
  if (name === 'bytes' || name === 'records') return 'Bytes';
  return null;
}

function readExpr(t: Type, c: Ctx, fnPrefix: string): string {
  if (t.kind === 'struct') {
    const plain = `read${t.struct.tsName}(r, version)`;
    const marked = c.tagged === true ? `(r.readUnsignedVarint() === 0 ? null : ${plain})` : `(r.readInt8() < 0 ? null : ${plain})`;
    return choose(c.nullable, c.nullCond, marked, plain);
  }
  if (t.kind === 'array') return `${fnPrefix}(r, version)`;
  const stem = lengthPrefixed(t.name);
  if (stem === null) return READ_PRIMITIVE[t.name]!;
  const variant = (flex: boolean, nul: boolean): string =>
    `r.read${flex ? 'Compact' : ''}${nul ? 'Nullable' : ''}${stem}()`;
  const byNull = (flex: boolean): string => choose(c.nullable, c.nullCond, variant(flex, true), variant(flex, false));
  return choose(c.flex, c.flexCond, byNull(true), byNull(false));
}

function writeStmt(t: Type, c: Ctx, e: string, fnPrefix: string): string {
  if (t.kind === 'struct') {
    const plain = `write${t.struct.tsName}(w, version, ${e})`;
    if (c.nullable === 'never') return `${plain};`;
    if (c.tagged === true) return `if (${e} === null) w.writeUnsignedVarint(0); else { w.writeUnsignedVarint(1); ${plain}; }`;
    return `if (${e} === null) w.writeInt8(-1); else { w.writeInt8(1); ${plain}; }`;
  }
  if (t.kind === 'array') return `${fnPrefix}(w, version, ${e});`;
  const stem = lengthPrefixed(t.name);
  if (stem === null) return `w.${WRITE_PRIMITIVE[t.name]}(${e});`;
  const variant = (flex: boolean, nul: boolean): string =>
    `w.write${flex ? 'Compact' : ''}${nul ? 'Nullable' : ''}${stem}(${e}${nul ? '' : '!'})`;
  const byNull = (flex: boolean): string => choose(c.nullable, c.nullCond, variant(flex, true), variant(flex, false));
  return `${choose(c.flex, c.flexCond, byNull(true), byNull(false))};`;
}

// ---------------------------------------------------------------------------------------
// Statements

function arrayHelpers(s: Struct, f: Field, out: string[]): void {
  if (f.type.kind !== 'array') return;
  const element = f.type.element;
  const c = fieldCtx(f);
  const elemCtx: Ctx = { ...c, nullable: 'never', nullCond: 'false' };
  const elemType = tsTypeOf(element);
  const fn = `${s.tsName}_${f.name}`;
  // Element arrays nested in arrays ([][]) do not occur in Kafka's schemas.
  if (element.kind === 'array') throw new Error(`${s.tsName}.${f.name}: nested arrays are not supported`);
  const countRead = (nul: boolean, flex: boolean): string =>
    `r.read${flex ? 'Compact' : ''}${nul ? 'Nullable' : ''}ArrayLength()`;
  const byNull = (flex: boolean): string => choose(c.nullable, c.nullCond, countRead(true, flex), countRead(false, flex));
  const resultType = c.nullable === 'never' ? `${elemType}[]` : `${elemType}[] | null`;
  out.push(`function read${fn}(r: Reader, version: number): ${resultType} {`);
  out.push(`  const count = ${choose(c.flex, c.flexCond, byNull(true), byNull(false))};`);
  if (c.nullable !== 'never') out.push('  if (count < 0) return null;');
  if (element.kind === 'struct') {
    out.push(`  return readArray(r, count, version, read${element.struct.tsName});`);
  } else {
    out.push(`  const items = new Array<${elemType}>(count);`);
    out.push(`  for (let i = 0; i < count; i++) items[i] = ${readExpr(element, elemCtx, '')};`);
    out.push('  return items;');
  }
  out.push('}');
  out.push(`function write${fn}(w: Writer, version: number, items: ${resultType}): void {`);
  const byFlex = (compact: string, plain: string): string =>
    c.flex === 'always' ? compact : c.flex === 'never' ? plain : `if (${c.flexCond}) ${compact} else ${plain}`;
  const flexExpr = c.flex === 'always' ? 'true' : c.flex === 'never' ? 'false' : `(${c.flexCond})`;
  if (c.nullable !== 'never') {
    out.push('  if (items === null) {');
    if (c.nullable === 'mixed') out.push(`    if (!(${c.nullCond})) nullNotAllowed('${s.tsName}', '${f.name}', version);`);
    out.push(`    ${byFlex('w.writeUnsignedVarint(0);', 'w.writeInt32(-1);')}`);
    out.push('    return;');
    out.push('  }');
  }
  if (element.kind === 'struct') {
    out.push(`  writeArray(w, items, version, ${flexExpr}, write${element.struct.tsName});`);
  } else {
    out.push(`  ${byFlex('w.writeCompactArrayLength(items.length);', 'w.writeArrayLength(items.length);')}`);
    out.push(`  for (const item of items) ${writeStmt(element, elemCtx, 'item', '')}`);
  }
  out.push('}');
}

function generateStruct(s: Struct, messageName: string, out: string[]): void {
  const structFlexible = intersect(s.flexible, s.range);
  const anyFlexible = structFlexible !== null;
  const flexMode = mode(s.range, structFlexible);
  const flexCond = structFlexible ? rangeCond(structFlexible, s.range) || 'true' : 'false';
  const fullRange = (f: Field): boolean =>
    f.versions !== null && s.range !== null && f.versions[0] === s.range[0] && f.versions[1] === s.range[1];
  const regular = s.fields.filter((f) => f.tagged === null);
  const tagged = s.fields.filter((f) => f.tagged !== null).sort((a, b) => a.tag! - b.tag!);

  // interface
  out.push(`export interface ${s.tsName} {`);
  for (const f of s.fields) {
    const optional = f.tagged !== null || !fullRange(f) ? '?' : '';
    out.push(`  ${f.name}${optional}: ${tsType(f)};`);
  }
  if (anyFlexible) out.push('  unknownTaggedFields?: RawTaggedField[];');
  out.push('}');
  out.push('');

  for (const f of s.fields) arrayHelpers(s, f, out);

  // default instance
  out.push(`export function default${s.tsName}(): ${s.tsName} {`);
  out.push(`  return { ${s.fields.map((f) => `${f.name}: ${defaultValue(f)}`).join(', ')} };`);
  out.push('}');

  if (s.needsIsDefault) {
    out.push(`function isDefault${s.tsName}(v: ${s.tsName}): boolean {`);
    const checks = s.fields.map((f) => `(v.${f.name} === undefined || ${isDefaultExpr(f, `v.${f.name}`)})`);
    out.push(`  return ${checks.length ? checks.join(' &&\n    ') : 'true'}${anyFlexible ? ' && !v.unknownTaggedFields?.length' : ''};`);
    out.push('}');
  }

  // read
  out.push(`function read${s.tsName}(r: Reader, version: number): ${s.tsName} {`);
  for (const f of s.fields) {
    const c = fieldCtx(f);
    const def = defaultValue(f);
    const decl = f.tagged !== null ? 'let' : 'const';
    if (f.tagged !== null) out.push(`  let ${readLocal(f.name)}: ${tsType(f)} = ${def};`);
    else {
      const cond = rangeCond(f.versions!, s.range);
      const read = readExpr(f.type, c, `read${s.tsName}_${f.name}`);
      out.push(`  ${decl} ${readLocal(f.name)}: ${tsType(f)} = ${cond ? `${cond} ? ${read} : ${def}` : read};`);
    }
  }
  if (anyFlexible) {
    out.push('  let unknownTaggedFields: RawTaggedField[] | undefined;');
    out.push(`  if (${flexMode === 'always' ? 'true' : flexCond}) {`);
    out.push('    const count = readTaggedFieldCount(r);');
    out.push('    for (let i = 0; i < count; i++) {');
    out.push('      const tag = r.readUnsignedVarint();');
    out.push('      const size = readTaggedFieldSize(r);');
    if (tagged.length > 0) {
      out.push('      const end = r.offset + size;');
      out.push('      switch (tag) {');
      for (const f of tagged) {
        const cond = rangeCond(f.tagged!, s.range);
        const c: Ctx = { ...fieldCtx(f), flex: 'always', tagged: true };
        out.push(`        case ${f.tag}:`);
        out.push(`          if (${cond || 'true'}) {`);
        out.push(`            ${readLocal(f.name)} = ${readExpr(f.type, c, `read${s.tsName}_${f.name}`)};`);
        out.push('            expectTaggedFieldEnd(r, end, tag);');
        out.push('            continue;');
        out.push('          }');
        out.push('          break;');
      }
      out.push('      }');
    }
    out.push('      (unknownTaggedFields ??= []).push({ tag, data: r.readRaw(size) });');
    out.push('    }');
    out.push('  }');
  }
  const props = s.fields.map((f) => (readLocal(f.name) === f.name ? f.name : `${f.name}: ${readLocal(f.name)}`));
  if (anyFlexible) out.push(`  const result: ${s.tsName} = { ${props.join(', ')} };`);
  if (anyFlexible) {
    out.push('  if (unknownTaggedFields !== undefined) result.unknownTaggedFields = unknownTaggedFields;');
    out.push('  return result;');
  } else out.push(`  return { ${props.join(', ')} };`);
  out.push('}');

  // write
  out.push(`function write${s.tsName}(w: Writer, version: number, v: ${s.tsName}): void {`);
  for (const f of regular) {
    const c = fieldCtx(f);
    const optional = !fullRange(f);
    const value = optional ? `(v.${f.name} === undefined ? ${defaultValue(f)} : v.${f.name})` : `v.${f.name}`;
    const local = `v_${f.name}`;
    const nullCheck = c.nullable === 'never' && (f.raw.type !== 'records')
      ? ''
      : c.nullable === 'mixed'
        ? `if (${local} === null && !(${c.nullCond})) nullNotAllowed('${s.tsName}', '${f.name}', version); `
        : '';
    const body = `const ${local} = ${value}; ${nullCheck}${writeStmt(f.type, c, local, `write${s.tsName}_${f.name}`)}`;
    const cond = rangeCond(f.versions!, s.range);
    if (!cond) {
      out.push(`  { ${body} }`);
    } else {
      out.push(`  if (${cond}) { ${body} }`);
      if (!f.raw.ignorable) {
        out.push(`  else if (v.${f.name} !== undefined && !(${isDefaultExpr(f, `v.${f.name}`)})) unsupported('${messageName}', '${f.name}', version);`);
      }
    }
  }
  if (anyFlexible) {
    out.push(`  if (${flexMode === 'always' ? 'true' : flexCond}) {`);
    if (tagged.length === 0) {
      out.push('    writeUnknownTaggedFields(w, v.unknownTaggedFields);');
    } else {
      out.push('    const known: RawTaggedField[] = [];');
      for (const f of tagged) {
        const cond = rangeCond(f.tagged!, s.range);
        const c: Ctx = { ...fieldCtx(f), flex: 'always', tagged: true };
        const e = `v.${f.name}`;
        const present = `${e} !== undefined && !(${isDefaultExpr(f, e)})`;
        out.push(`    if (${cond ? `${cond} && ` : ''}${present}) {`);
        out.push(`      const value = ${e};`);
        out.push(`      known.push(taggedValue(${f.tag}, (w) => { ${writeStmt(f.type, c, 'value', `write${s.tsName}_${f.name}`)} }));`);
        out.push('    }');
        if (cond && !f.raw.ignorable) {
          out.push(`    else if (!(${cond}) && ${present}) unsupported('${messageName}', '${f.name}', version);`);
        }
      }
      out.push('    writeTaggedSection(w, known, v.unknownTaggedFields);');
    }
    out.push('  }');
  }
  out.push('}');
  out.push('');
}

function schemaDescriptor(s: Struct): string {
  const rangeLit = (r: Range): string => (r === null ? 'null' : `[${r[0]}, ${r[1]}]`);
  const typeLit = (t: Type): string => {
    if (t.kind === 'array') return `{ kind: 'array', element: ${typeLit(t.element)} }`;
    if (t.kind === 'struct') return `{ kind: 'struct', struct: ${t.struct.tsName}Schema }`;
    return `{ kind: 'primitive', type: '${t.name}' }`;
  };
  const fields = s.fields.map((f) => {
    const parts = [
      `name: '${f.name}'`, `type: ${typeLit(f.type)}`, `versions: ${rangeLit(f.versions)}`,
      `nullableVersions: ${rangeLit(f.nullable)}`, `taggedVersions: ${rangeLit(f.tagged)}`,
      `tag: ${f.tag === null ? 'null' : f.tag}`, `ignorable: ${Boolean(f.raw.ignorable)}`,
    ];
    if (f.raw.flexibleVersions !== undefined) parts.push(`flexibleVersions: ${rangeLit(parseRange(f.raw.flexibleVersions))}`);
    const d = defaultLiteral(f);
    if (d !== 'undefined') parts.push(`default: ${d}`);
    return `    { ${parts.join(', ')} },`;
  });
  return `const ${s.tsName}Schema: StructSchema = {\n  name: '${s.tsName}',\n  fields: [\n${fields.join('\n')}\n  ],\n};`;
}

/** The body of one message's code (interfaces, helpers, codec). */
export function generateMessage(m: GeneratedMessage, apiKey: number): string {
  const out: string[] = [];
  for (const s of m.structs) generateStruct(s, m.codecName, out);
  for (const s of m.structs) out.push(schemaDescriptor(s));
  out.push('');
  out.push(`export const ${m.codecName}: MessageCodec<${m.dataType}> = defineCodec<${m.dataType}>({`);
  out.push(`  name: '${m.codecName}',`);
  out.push(`  apiKey: ${apiKey},`);
  out.push(`  lowestVersion: ${m.range[0]},`);
  out.push(`  highestVersion: ${m.range[1]},`);
  out.push(`  flexibleFrom: ${m.flexibleFrom === null ? 'null' : m.flexibleFrom},`);
  out.push(`  schema: ${m.dataType}Schema,`);
  out.push(`  write: write${m.dataType},`);
  out.push(`  read: read${m.dataType},`);
  out.push('});');
  out.push('');
  return out.join('\n');
}
