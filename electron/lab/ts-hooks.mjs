// Module hooks for source-worker.mjs: `./x.js` imported from a .ts file resolves to `./x.ts` when only that exists
// (the sources import by their compiled names), and .ts files are transpiled with the project's TypeScript. The
// output is cached on disk by content: a worker started again skips loading TypeScript (seconds) altogether.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

// In the project's node_modules/.cache, as other tools keep theirs: not in a shared, world-writable temp folder
// where someone else could plant code for the worker to run.
const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/concertina-lab-ts/', import.meta.url));
let typescript;

export async function resolve(specifier, context, nextResolve) {
  if (specifier.endsWith('.js') && context.parentURL?.endsWith('.ts') && /^\.{1,2}\//.test(specifier)) {
    const url = new URL(specifier, context.parentURL);
    const source = new URL(url.href.replace(/\.js$/, '.ts'));
    if (!existsSync(url) && existsSync(source)) return { url: source.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const text = readFileSync(file, 'utf8');
  const cached = path.join(
    CACHE_DIR,
    `${createHash('sha256').update(file).update('\0').update(text).digest('hex')}.js`,
  );
  if (existsSync(cached)) return { format: 'module', source: readFileSync(cached, 'utf8'), shortCircuit: true };
  typescript ??= (await import('typescript')).default;
  const { outputText } = typescript.transpileModule(text, {
    fileName: file,
    compilerOptions: {
      module: typescript.ModuleKind.ESNext,
      target: typescript.ScriptTarget.ES2022,
      inlineSourceMap: true,
      inlineSources: true,
    },
  });
  // Written aside then renamed: a worker starting meanwhile never reads half a file.
  mkdirSync(CACHE_DIR, { recursive: true });
  const partial = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, outputText);
  renameSync(partial, cached);
  return { format: 'module', source: outputText, shortCircuit: true };
}
