// `node replay-warm.mjs CPU_S simulate-arguments...`: runs `concertina simulate` again and again in this one process
// (the bundle the bin runs, under the bin's V8 flags) until the runs have used CPU_S seconds of CPU (at least 6 runs,
// at most 60), and prints the CPU seconds of each run as a JSON array. The first run is cold: V8 interprets the code
// and compiles what runs hot. The last ones are warm: what the scheduler and the simulator cost once compiled, which
// tells the engine's own cost apart from V8's warm-up (issue 17). A short replay needs many runs to get there (batsim
// under fcfs: 0.12 s cold, 0.05 s at its sixth run, 0.008 s by its fortieth), hence a budget rather than a count.
// Part of replay-bench; the bundle must be built (scripts/bundle-cli.mjs).
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
const budget = Number(process.argv[2]);
const cpu = [];
for (let spent = 0; cpu.length < 6 || (spent < budget && cpu.length < 60); spent += cpu.at(-1)) {
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
