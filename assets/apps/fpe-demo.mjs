#!/usr/bin/env node
// A fully-predictably evolving application (Klein & Pérez): it runs the steps of its evolution profile in turn, each
// for its seconds on its processors, the same steps the job was submitted with (`profile.steps`). Concertina starts
// each step when the job's scheduled profile says, by giving it the step's processors (`resources`); a step scheduled
// longer than it computes leaves it idle meanwhile. As the CooRMv2 NEXT chain, it announces each larger next step as
// it starts the one before (`update`, that step's seconds ahead); Concertina checks the announcement against the
// profile. A refusal says a step's processors will not come (its grow failed for good; Concertina ends the job): it
// stops there. The done note lists the sizes it ran its steps with, or the refusal.
//
//   CONCERTINA_JOB_DIR=... CONCERTINA_SIZE=1 node fpe-demo.mjs <seconds:processors,seconds:processors,...>
async function main() {
  const { connect } = await import('../sdk/concertina-app.mjs');
  const steps = parseSteps(process.argv[2]);
  const app = await connect();
  const ran = [];
  const over = () => app.stopRequested || app.refusal !== undefined;
  for (let i = 0; i < steps.length && !over(); i++) {
    // Decision: a step begins once the job holds exactly its processors (Concertina gives them at the step's time);
    // a step of the same size as the one before begins at once.
    while (app.size !== steps[i].processors && !over()) await pause(app, 100);
    if (over()) break;
    ran.push(app.size);
    const next = steps[i + 1];
    if (next && next.processors > app.size) await app.update(next.processors, { announceS: steps[i].seconds });
    const end = Date.now() + steps[i].seconds * 1000;
    while (Date.now() < end && !app.stopRequested) {
      app.progress(
        (i + 1 - (end - Date.now()) / (steps[i].seconds * 1000)) / steps.length,
        `step ${i + 1} of ${steps.length} on ${app.size}`,
      );
      await pause(app, Math.min(100, end - Date.now()));
    }
  }
  app.done(!over(), app.refusal ?? `steps on ${ran.join(', ')}`);
  app.close();
}

/** Waits `ms`, then handles Concertina's messages (a safe point). */
async function pause(app, ms) {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
  await app.sync();
}

function parseSteps(text) {
  const steps = String(text ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair, i) => {
      const [seconds, processors] = pair.split(':').map(Number);
      if (!(seconds > 0) || !Number.isInteger(processors) || processors < 1) {
        process.stderr.write(
          `fpe-demo: step ${i + 1}: "${pair}" must be seconds:processors (seconds > 0, processors a whole number >= 1)\n`,
        );
        process.exit(2);
      }
      return { seconds, processors };
    });
  if (steps.length === 0) {
    process.stderr.write('fpe-demo: usage: fpe-demo.mjs <seconds:processors,...>\n');
    process.exit(2);
  }
  return steps;
}

main().catch((error) => {
  process.stderr.write(`fpe-demo: ${error?.stack ?? error}\n`);
  process.exit(1);
});
