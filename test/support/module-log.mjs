// Preloaded with `node --import`: records every module the process resolves (file URLs, one a line) in the file named
// by CONCERTINA_MODULE_LOG, through a resolve hook (module-log-hooks.mjs).
import { register } from 'node:module';
import { URL } from 'node:url';

register(new URL('./module-log-hooks.mjs', import.meta.url));
