/**
 * docs/CLI.md against the broker config table: its generated sections are current
 * (`npm run generate:docs` rewrites them), and, read back as Markdown tables, they list every
 * flag `brook broker` accepts and every setting with its option name and default, and every
 * broker config that sets a topic default with its default and whether it is dynamic.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BROKER_CONFIG_ENTRIES, BROKER_TOPIC_DEFAULTS, DYNAMIC_BROKER_CONFIGS, defaultText, type AnySettingDef } from '../../src/broker/broker-configs.js';
import { BROKER_OPTIONS } from '../../src/cli/commands/broker.js';
import { renderBrokerConfigDocs } from '../../scripts/broker-config-docs.js';
import { projectRoot } from '../support/brook.js';

const CLI_MD = readFileSync(join(projectRoot, 'docs', 'CLI.md'), 'utf8');

/** The rows of the Markdown table in section `name`, as cells (code spans kept). */
function rows(name: string): string[][] {
  const section = CLI_MD.slice(CLI_MD.indexOf(`<!-- generated: ${name} -->`), CLI_MD.indexOf(`<!-- end: ${name} -->`));
  return section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('|---')).slice(1)
    .map((l) => l.slice(2, -2).split(/ (?<!\\)\| /).map((c) => c.trim()));
}

/** The code spans of a cell. */
const spans = (cell: string): string[] => [...cell.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);

test('docs/CLI.md\'s broker sections are current: npm run generate:docs changes nothing', () => {
  assert.ok(renderBrokerConfigDocs(CLI_MD) === CLI_MD, 'docs/CLI.md is not current: run npm run generate:docs');
});

test('the flags table lists exactly the flags brook broker accepts', () => {
  const documented = rows('broker-flags').flatMap(([flag]) => spans(flag!)[0]!.split(/,? /).filter((w) => w.startsWith('-')));
  const accepted = Object.entries(BROKER_OPTIONS).flatMap(([name, o]) => [`--${name}`, ...(o.short !== undefined ? [`-${o.short}`] : [])]);
  assert.deepEqual(documented.sort(), accepted.sort());
});

test('the --config table lists every setting under its names, with its option name and default', () => {
  const table = rows('broker-properties');
  for (const d of BROKER_CONFIG_ENTRIES.filter((e): e is AnySettingDef => e.kind === 'setting')) {
    const row = table.find(([names]) => spans(names!)[0] === d.name);
    assert.ok(row !== undefined, `${d.name} is not in docs/CLI.md`);
    assert.deepEqual(spans(row[0]!), [d.name, ...d.aliases], d.name);
    assert.deepEqual(spans(row[1]!), [d.option], d.name);
    const dflt = defaultText(d);
    if (d.defaultDoc === undefined) assert.equal(spans(row[2]!)[0], dflt, `${d.name}'s default`);
    if (d.kafkaDefault !== undefined && d.kafkaDefault !== null && d.kafkaDefault !== dflt) assert.ok(row[2]!.includes(`Kafka: \`${d.kafkaDefault}\``), `${d.name}'s Kafka default`);
  }
  for (const d of BROKER_CONFIG_ENTRIES) {
    if (d.kind !== 'family') continue;
    for (const p of d.properties) assert.ok(table.some(([names, option]) => spans(names!).join() === p.names.join() && spans(option!)[0] === d.option), p.names.join());
  }
});

test('the topic defaults table lists every broker config that sets a topic default, its default, and whether it is dynamic', () => {
  const table = rows('broker-topic-defaults');
  assert.deepEqual(table.map(([name]) => spans(name!)[0]), [...BROKER_TOPIC_DEFAULTS.keys()]);
  for (const [name, topic, dflt, used, dynamic] of table) {
    const d = BROKER_TOPIC_DEFAULTS.get(spans(name!)[0]!)!;
    assert.equal(spans(topic!)[0], d.topic.name);
    assert.equal(spans(dflt!)[0] ?? null, d.default, d.name);
    assert.equal(used, d.topic.implemented ? 'yes' : 'no', d.name);
    assert.equal(dynamic, DYNAMIC_BROKER_CONFIGS.has(d.name) ? 'yes' : 'no', d.name);
  }
});
