// `node replay-warm.mjs RUNS simulate-arguments...`: runs `concertina simulate` RUNS times in this one process (the
// bundle the bin runs, under the bin's V8 flags) and prints the CPU seconds of each run as a JSON array. The first run
// is cold: V8 interprets the code and compiles what runs hot. The last ones are warm: what the scheduler and the
// simulator cost once compiled, which tells the engine's own cost apart from V8's warm-up (issue 17). Part of
// replay-bench; the bundle must be built (scripts/bundle-cli.mjs).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { URL } from 'node:url';
import v8 from 'node:v8';

const repoRoot = new URL('../../', import.meta.url);
for (const flag of JSON.parse(readFileSync(new URL('bin/simulate-v8-flags.json', repoRoot), 'utf8'))) {
  v8.setFlagsFromString(flag);
}
const { main } = createRequire(import.meta.url)(new URL('dist/cli/simulate.cjs', repoRoot).pathname);
// What the runs write is not read: a stream that takes it at once.
const discard = { write: (_chunk, callback) => (callback?.(), true) };
const runs = Number(process.argv[2]);
const cpu = [];
for (let i = 0; i < runs; i++) {
  const before = process.cpuUsage();
  const code = await main(['node', 'concertina', 'simulate', ...process.argv.slice(3)], {
    stdout: discard,
    stderr: discard,
  });
  if (code !== 0) throw new Error(`simulate ended with ${code}`);
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1e6);
}
process.stdout.write(`${JSON.stringify(cpu)}\n`);
