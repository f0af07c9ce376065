// Preloaded with `node --import`: records every module the process resolves (file URLs, one a line) in the file named
// by CONCERTINA_MODULE_LOG, through a resolve hook (module-log-hooks.mjs), every script compiled through node:vm
// (bin/concertina.js runs the bundle of the simulate path as one, to give it V8's code cache) and every package that
// bundle require()s.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import process from 'node:process';
import { pathToFileURL, URL } from 'node:url';
import vm from 'node:vm';

register(new URL('./module-log-hooks.mjs', import.meta.url));

const CompiledScript = vm.Script;
vm.Script = class LoggedScript extends CompiledScript {
  constructor(code, options) {
    super(code, options);
    const log = process.env.CONCERTINA_MODULE_LOG;
    if (log && typeof options?.filename === 'string') appendFileSync(log, `${pathToFileURL(options.filename).href}\n`);
  }
};

const required = Module.prototype.require;
Module.prototype.require = function loggedRequire(id) {
  const log = process.env.CONCERTINA_MODULE_LOG;
  if (log && !Module.isBuiltin(id)) appendFileSync(log, `${pathToFileURL(Module._resolveFilename(id, this)).href}\n`);
  return required.call(this, id);
};
