// Module hooks (node:module register): appends each resolved module's URL, built-ins left out, to CONCERTINA_MODULE_LOG.
import { appendFileSync } from 'node:fs';
import process from 'node:process';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const log = process.env.CONCERTINA_MODULE_LOG;
  if (log && !resolved.url.startsWith('node:')) appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
