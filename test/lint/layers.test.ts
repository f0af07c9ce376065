// The layers and the no-cycle rule of eslint.config.js: each fails on a deliberate violation (a fixture linted as if
// it sat in the folder it breaks the rule from), lets the allowed imports through, and the files that once broke
// them pass as they are now.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });

/** The layer rule's reports (and any parse error) on `code` linted as the file `file` (relative to the repository). */
async function fired(file: string, code: string): Promise<{ rule: string | null; line: number }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages
    .filter((m) => m.fatal || m.ruleId === 'no-restricted-imports')
    .map((m) => ({ rule: m.ruleId, line: m.line }));
}
const restricted = (line = 1) => [{ rule: 'no-restricted-imports', line }];

describe('layers', () => {
  it.each([
    ['renderer/src/stores/x.ts', "import { BATCH_SYSTEMS } from '../../../runners/live/config.js';"],
    ['renderer/src/stores/x.ts', "import { simulate } from '../../../core/sim/simulate.js';"],
    ['renderer/src/stores/x.ts', "import type { SchedulerEvent } from '../../../core/events.js';"],
    ['renderer/src/x.ts', "import { Host } from '../../electron/host/host.js';"],
    ['renderer/src/stores/x.ts', "import { methods } from '../../../electron/api/contract.js';"],
    ['renderer/src/stores/x.ts', "export { csvLines } from '../../../test/support/x.js';"],
    ['runners/live/x.ts', "import { Host } from '../../electron/host/host.js';"],
    ['runners/x.ts', "import type { Speed } from '../electron/api/contract.js';"],
    ['core/x.ts', "import { liveClusterSchema } from '../runners/live/config.js';"],
    ['core/sim/apps/x.ts', "import { methods } from '../../../electron/api/contract.js';"],
    ['core/model/x.ts', "import type { Host } from '../../electron/host/host.js';"],
    ['core/sim/apps/x.ts', "import { liveClusterSchema } from '../../../runners/live/config.js';"],
    ['core/sim/x.ts', "import { harness } from '../../test/cli/harness.js';"],
    ['core/x.ts', "import { app } from 'electron';"],
    ['core/x.ts', "import { readFileSync } from 'node:fs';"],
  ])('%s may not: %s', async (file, code) => {
    expect(await fired(file, code)).toEqual(restricted());
  });

  it.each([
    ['renderer/src/stores/x.ts', "import type { MethodOutput } from '../../../electron/api/contract.js';"],
    ['renderer/src/stores/x.ts', "import { BATCH_SYSTEMS } from '../../../electron/api/choices.js';"],
    ['renderer/src/stores/x.ts', "import { jobSpecSchema } from '../../../core/model/schemas.js';"],
    ['renderer/src/x.ts', "import { useJobs } from './stores/jobs.js';"],
    ['runners/live/x.ts', "import { jobSpecSchema } from '../../core/model/schemas.js';"],
    ['core/sim/x.ts', "import { jobSpecSchema } from '../model/schemas.js';"],
    ['electron/host/x.ts', "import { BATCH_SYSTEMS } from '../../runners/live/config.js';"],
  ])('%s may: %s', async (file, code) => {
    expect(await fired(file, code)).toEqual([]);
  });

  it("checks a Vue component's script at its line in the file", async () => {
    const component = [
      '<template><p /></template>',
      '',
      '<script setup lang="ts">',
      "import { computed } from 'vue';",
      "import { DEMO_APPS } from '../../../runners/live/assets-placeholder.js';",
      'const n = computed(() => DEMO_APPS.length);',
      '</script>',
      '',
    ].join('\n');
    expect(await fired('renderer/src/views/X.vue', component)).toEqual(restricted(5));
    // Only the layers are checked there: the template uses what the script declares.
    expect(
      await fired(
        'renderer/src/views/X.vue',
        component.replace('runners/live/assets-placeholder.js', 'electron/api/choices.js'),
      ),
    ).toEqual([]);
  });
});

describe('no cycles', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'concertina-lint-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, code: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), code);
  };
  // The repository's config, on files of their own (a cycle is read from the files on disk).
  const inDir = new ESLint({ cwd: dir, overrideConfigFile: path.join(root, 'eslint.config.js') });
  const rulesIn = async (file: string) => (await inDir.lintFiles([file]))[0]!.messages.map((m) => m.ruleId);

  it('fails when two modules import each other, directly or through a third', async () => {
    write('core/a.ts', "import { b } from './b.js';\nexport const a = () => b + 1;\n");
    write('core/b.ts', "import { a } from './a.js';\nexport const b = 1;\nexport const c = () => a();\n");
    write(
      'electron/cli/main.ts',
      "export const main = async () => (await import('./sub.js')).sub;\nexport const NAME = 'x';\n",
    );
    write('electron/cli/sub.ts', "import { NAME } from './helper.js';\nexport const sub = NAME;\n");
    write('electron/cli/helper.ts', "import { NAME as n } from './main.js';\nexport const NAME = n;\n");
    expect(await rulesIn('core/a.ts')).toEqual(['import-x/no-cycle']);
    expect(await rulesIn('core/b.ts')).toEqual(['import-x/no-cycle']);
    expect(await rulesIn('electron/cli/main.ts')).toEqual(['import-x/no-cycle']);
  });

  it('lets type-only imports back through (they vanish when compiled)', async () => {
    write('core/c.ts', "import { d } from './d.js';\nexport type C = { n: number };\nexport const c = d;\n");
    write('core/d.ts', "import type { C } from './c.js';\nexport const d: C = { n: 1 };\n");
    expect(await rulesIn('core/c.ts')).toEqual([]);
    expect(await rulesIn('core/d.ts')).toEqual([]);
  });
});

describe('the tree as it is', () => {
  it('passes where the layers and cycles were broken', async () => {
    const results = await eslint.lintFiles([
      'core/sim/apps',
      'electron/cli/main.ts',
      'electron/cli/serve.ts',
      'electron/cli/store-check.ts',
      'electron/lab/schemas.ts',
      'renderer/src',
    ]);
    expect(
      results.flatMap((r) =>
        r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`),
      ),
    ).toEqual([]);
  });
});
