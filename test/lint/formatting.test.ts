// The formatting check of `npm run lint` (prettier --check with the repository's .prettierrc.json and
// .prettierignore): a file in the project's style passes, one that breaks it fails, and the ignored folders are skipped.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ignorePath = path.join(root, '.prettierignore');

/** What `prettier --check` says of `code` placed at `file` (relative to the repository): formatted, or not. */
async function formatted(file: string, code: string): Promise<boolean> {
  const filepath = path.join(root, file);
  const options = await prettier.resolveConfig(filepath, { editorconfig: true });
  return prettier.check(code, { ...options, filepath });
}

describe('formatting', () => {
  const wellFormed = 'export const width = (columns: number): string => `${columns} columns`;\n';

  it('passes a file in the project style', async () => {
    expect(await formatted('core/x.ts', wellFormed)).toBe(true);
  });

  it.each([
    ['double quotes', 'export const width = "120";\n'],
    ['a missing semicolon', "export const width = '120'\n"],
    [
      'a line past 120 columns',
      `export const long = [${Array.from({ length: 30 }, (_, i) => `'item${i}'`).join(', ')}];\n`,
    ],
    ['a short list spread over lines', "export const list = [\n  'a',\n  'b'\n];\n"],
  ])('fails on %s', async (_what, code) => {
    expect(await formatted('core/x.ts', code)).toBe(false);
  });

  it('skips what .prettierignore names (built output)', async () => {
    const info = await prettier.getFileInfo(path.join(root, 'dist/core/x.js'), { ignorePath });
    expect(info.ignored).toBe(true);
    expect((await prettier.getFileInfo(path.join(root, 'core/x.ts'), { ignorePath })).ignored).toBe(false);
  });
});
