/**
 * docs/CLI.md's sections about the broker's settings, rendered from the broker config table
 * (src/broker/broker-configs.ts): `brook broker`'s synopsis and flags, the `--config`
 * properties, and the broker configs that set topic defaults. Each section sits between
 * `<!-- generated: NAME -->` and `<!-- end: NAME -->`; scripts/generate-broker-config-docs.ts
 * rewrites them, test/unit/broker-config-docs.test.ts checks they are current.
 */
import { BROKER_CONFIG_ENTRIES, BROKER_TOPIC_DEFAULTS, type AnySettingDef, type FamilyDef } from '../src/broker/broker-configs.js';
import { BROKER_FLAG_DOCS, defaultMarkdown, settingDefaultDoc } from '../src/cli/commands/broker.js';

/** Markdown table cells may not hold a bare `|`. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`.replace(/ {2}\|/g, ' |')),
  ].join('\n');
}

function synopsis(): string {
  const words = BROKER_FLAG_DOCS.filter((f) => f.flag !== '-h, --help').map((f) => `[${f.flag}]`);
  const lines: string[] = [];
  let line = 'brook broker';
  for (const w of words) {
    if (line.length + 1 + w.length > 96) {
      lines.push(line);
      line = `${' '.repeat('brook broker'.length)} ${w}`;
    } else {
      line = `${line} ${w}`;
    }
  }
  lines.push(line);
  return ['```', ...lines, '```'].join('\n');
}

function flags(): string {
  return `${synopsis()}\n\n${table(['option', 'default', 'meaning'], BROKER_FLAG_DOCS.map((f) => [`\`${f.flag}\``, defaultMarkdown(f.default), f.doc]))}`;
}

const code = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');

function settingRow(d: AnySettingDef): string[] {
  const names = d.aliases.length === 0 ? code([d.name]) : `${code([d.name])} (or ${code(d.aliases)})`;
  return [names, `\`${d.option}\``, defaultMarkdown(settingDefaultDoc(d)), d.brookOnly === true ? `Brook's own: ${d.doc}` : d.doc];
}

function familyRows(d: FamilyDef): string[][] {
  return d.properties.map((p) => [code(p.names), `\`${d.option}\``, p.default ?? '', p.doc]);
}

function properties(): string {
  const rows = BROKER_CONFIG_ENTRIES.flatMap((d) => (d.kind === 'setting' ? [settingRow(d)] : d.kind === 'family' ? familyRows(d) : []));
  return table(['property', 'option', 'default', 'meaning'], rows);
}

function topicDefaults(): string {
  const rows = [...BROKER_TOPIC_DEFAULTS.values()].map((d) => {
    const unit = d.topic.synonyms.find((s) => s.name === d.name)?.scale;
    const topic = unit === undefined ? `\`${d.topic.name}\`` : `\`${d.topic.name}\` (× ${unit})`;
    return [`\`${d.name}\``, topic, d.default === null ? 'none' : `\`${d.default}\``, d.topic.implemented ? 'yes' : 'no', d.dynamic ? 'yes' : 'no'];
  });
  return table(['property', 'topic config', "Kafka's default", 'used', 'dynamic'], rows);
}

const SECTIONS: Readonly<Record<string, () => string>> = { 'broker-flags': flags, 'broker-properties': properties, 'broker-topic-defaults': topicDefaults };

/** `text` (docs/CLI.md) with every generated section rendered afresh; throws when a section's markers are missing. */
export function renderBrokerConfigDocs(text: string): string {
  let out = text;
  for (const [name, render] of Object.entries(SECTIONS)) {
    const begin = `<!-- generated: ${name} -->\n`;
    const end = `<!-- end: ${name} -->`;
    const from = out.indexOf(begin);
    const to = out.indexOf(end, from);
    if (from < 0 || to < 0) throw new Error(`docs/CLI.md has no section ${name} (${begin.trim()} ... ${end})`);
    out = `${out.slice(0, from + begin.length)}${render()}\n${out.slice(to)}`;
  }
  return out;
}
