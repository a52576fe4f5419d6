/**
 * The layering lint (`layers/direction`, scripts/eslint-layers.mjs, configured in
 * eslint.config.js): the repository's own ESLint configuration, run on source texts placed
 * in each layer, reports every import against the direction docs/ARCHITECTURE.md draws and
 * none along it. Without the rule in eslint.config.js these tests fail.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, 'eslint.config.js') });

/** The layers messages `layers/direction` reports for `code` placed at `file` (relative to the repository). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  assert.ok(result);
  return result.messages.filter((m) => m.ruleId === 'layers/direction').map((m) => m.message);
}

/** Imports the layers must not make (docs/ARCHITECTURE.md): [importing file, import]. */
const AGAINST: [string, string][] = [
  ['src/kafkajs/x.ts', '../broker/broker.js'],
  ['src/client/x.ts', '../kafkajs/index.js'],
  ['src/client/consumer/x.ts', '../../broker/broker.js'],
  ['src/client/x.ts', '../coordinator/group.js'],
  ['src/client/producer/x.ts', '../../storage/log.js'],
  ['src/client/x.ts', '../cli/main.js'],
  ['src/coordinator/consumer/x.ts', '../../broker/broker.js'],
  ['src/coordinator/x.ts', '../storage/log.js'],
  ['src/coordinator/x.ts', '../client/cluster.js'],
  ['src/coordinator/x.ts', '../assignors/range.js'],
  ['src/protocol/messages/x.ts', '../../assignors/range.js'],
  ['src/protocol/x.ts', '../client/cluster.js'],
  ['src/protocol/x.ts', '../storage/log.js'],
  ['src/util/x.ts', '../protocol/errors.js'],
  ['src/util/x.ts', '../client/cluster.js'],
  ['src/assignors/x.ts', '../client/cluster.js'],
  ['src/assignors/x.ts', '../coordinator/group.js'],
  ['src/storage/x.ts', '../broker/broker.js'],
  ['src/storage/x.ts', '../coordinator/group.js'],
  ['src/storage/x.ts', '../client/cluster.js'],
  ['src/broker/handlers/x.ts', '../../client/cluster.js'],
  ['src/broker/x.ts', '../cli/main.js'],
];

/** Imports along the direction. */
const ALONG: [string, string][] = [
  ['src/kafkajs/x.ts', '../client/producer/index.js'],
  ['src/kafkajs/x.ts', '../assignors/kafkajs-round-robin.js'],
  ['src/client/consumer/x.ts', '../../assignors/range.js'],
  ['src/client/x.ts', '../protocol/errors.js'],
  ['src/client/x.ts', '../util/log.js'],
  ['src/client/consumer/x.ts', '../cluster.js'],
  ['src/assignors/x.ts', '../protocol/consumer-protocol.js'],
  ['src/assignors/x.ts', '../util/range-split.js'],
  ['src/coordinator/consumer/x.ts', '../../protocol/errors.js'],
  ['src/coordinator/consumer/x.ts', '../../util/range-split.js'],
  ['src/protocol/x.ts', '../util/log.js'],
  ['src/storage/x.ts', '../protocol/records/batch.js'],
  ['src/broker/x.ts', '../coordinator/group.js'],
  ['src/broker/handlers/x.ts', '../../storage/log.js'],
  ['src/cli/commands/x.ts', '../../broker/broker.js'],
  ['src/cli/commands/x.ts', '../../client/admin.js'],
  ['src/cli/commands/x.ts', '../../storage/topic-configs.js'],
  ['src/index.ts', './broker/broker.js'],
  ['test/unit/x.ts', '../../src/broker/broker.js'],
  ['bench/x.ts', '../src/storage/log.js'],
];

describe('layering lint', { timeout: 60_000 }, () => {
  it('reports an import against the direction of the layers', async () => {
    for (const [file, source] of AGAINST) {
      const errors = await layerErrors(file, `export { x } from '${source}';\n`);
      assert.equal(errors.length, 1, `${file} importing ${source}: ${errors.join('; ')}`);
      assert.match(errors[0]!, /may not import from '[a-z]+'/);
    }
  });

  it('accepts imports along the direction, within a layer, and outside src/', async () => {
    for (const [file, source] of ALONG) {
      assert.deepEqual(await layerErrors(file, `export { x } from '${source}';\n`), [], `${file} importing ${source}`);
    }
  });

  it('catches every form of import and every spelling of the path', async () => {
    const file = 'src/client/consumer/x.ts';
    const forms = [
      "import '../../storage/log.js';",
      "import type { Log } from '../../storage/log.js';\nexport type L = Log;",
      "export * from '../../broker/broker.js';",
      "export const load = () => import('../../coordinator/group.js');",
      "export type B = typeof import('../../broker/broker.js');",
      // Up and down again: the resolved path decides, not the string.
      "export { x } from '../../../src/storage/log.js';",
      "export { x } from '../consumer/../../broker/broker.js';",
    ];
    for (const code of forms) assert.equal((await layerErrors(file, code)).length, 1, code);
  });

  it('reports a layer importing the package entry point or a file outside src/', async () => {
    assert.match((await layerErrors('src/client/x.ts', "export { x } from '../index.js';"))[0] ?? '', /entry point/);
    assert.match((await layerErrors('src/storage/x.ts', "export { x } from '../../test/support/brook.js';"))[0] ?? '', /outside/);
  });

  it('reports a folder of src/ that is not a layer, and every folder of src/ is one', async () => {
    assert.match((await layerErrors('src/plugins/x.ts', 'export const x = 1;'))[0] ?? '', /not a layer/);
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory());
    assert.ok(folders.length >= 8);
    for (const folder of folders) {
      assert.deepEqual(await layerErrors(`src/${folder.name}/x.ts`, 'export const x = 1;'), [], `src/${folder.name} is a layer`);
    }
  });
});
