// Where a store's copy goes before a run that could not be resumed is dropped: beside it, named by the moment.
import path from 'node:path';

export function backupName(storeFile: string, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-');
  const { dir, name, ext } = path.parse(storeFile);
  return path.join(dir, `${name}.unresumed-${stamp}${ext || '.db'}`);
}
