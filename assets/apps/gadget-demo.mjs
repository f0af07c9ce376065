#!/usr/bin/env node
// A GADGET-like malleable application (after GADGET-2 in the KOALA paper): a gravitational N-body simulation
// advanced by leapfrog steps, the forces of each step split among its `size` processors (direct summation, each
// processor given all positions and computing the accelerations of its slice of bodies). Like GADGET-2 it runs on
// any size between its minimum and maximum. It checks its own result: total energy is conserved up to the
// integrator's error, and the done note gives the drift. Processor 0 is this process; the others are processes it
// recruits on the slots Concertina holds (this file run with --serve-slot), or worker threads without stubs.
//
//   CONCERTINA_JOB_DIR=... CONCERTINA_SIZE=2 CONCERTINA_MIN=1 CONCERTINA_MAX=8 node gadget-demo.mjs [bodies] [steps]
//
// bodies (default 1000), steps (default 30000: its amount of work). At the end it writes work/ledger.json in the job directory: which
// process (slot, host, pid) computed the accelerations of how many bodies.
import { Processors, runDemo } from './demo-processors.mjs';

const DT = 1e-3;
/** Softening length: keeps close encounters finite. */
const EPS2 = 1e-2 ** 2;
/**
 * Decision: the default amount of work runs for minutes, so that a job submitted from the console lives long enough
 * to be grown and shrunk (measured: 330 s on 2 processors, on a machine whose 2 cores were loaded 8 to 10; the
 * earlier 200 steps took 1.4 s).
 */
const DEFAULT_STEPS = 30_000;

async function main() {
  const { connect } = await import('../sdk/concertina-app.mjs');
  const bodies = argInt(2, 1000, 'bodies');
  const steps = argInt(3, DEFAULT_STEPS, 'steps');
  const state = initialState(bodies);
  let processors;
  const app = await connect({
    onOffer: (processors, { target, max }) => Math.min(processors, max - target),
    onShrink: (processors, _mandatory, { size, min }) => Math.min(processors, size - min),
    onResized: (size) => processors.resize(size),
  });
  processors = new Processors(app, import.meta.url, accelerations, { measure: (r) => r.acc.length / 3 });
  await processors.resize(app.size);

  const startEnergy = energy(state);
  await forces(processors, state);
  let step = 0;
  while (step < steps && !app.stopRequested) {
    kick(state, DT / 2);
    drift(state, DT);
    await forces(processors, state);
    kick(state, DT / 2);
    step++;
    await app.sync();
    await processors.resize(app.size);
    app.progress(step / steps, `size ${app.size}: step ${step}/${steps}`);
  }
  await processors.close();
  processors.writeLedger();
  const drift_ = Math.abs((energy(state) - startEnergy) / startEnergy);
  const summary = `${step}/${steps} steps of ${bodies} bodies, relative energy drift ${drift_.toExponential(2)}`;
  const complete = step === steps && drift_ < 1e-2;
  app.done(complete, app.stopRequested && step < steps ? `stopped (${app.stopReason}) after ${summary}` : summary);
}

/**
 * The accelerations of all bodies, each processor computing an equal slice. Every body's sum runs over all the
 * others in the same order whoever computes it, so the result does not depend on the size.
 */
async function forces(processors, { n, pos, acc, mass }) {
  const size = processors.units.length;
  // Plain arrays: they go to other processes as JSON, which keeps every double exactly.
  const positions = Array.from(pos);
  const results = await Promise.all(
    processors.units.map((unit, k) =>
      unit.call({ pos: positions, mass, start: Math.floor((k * n) / size), end: Math.floor(((k + 1) * n) / size) }),
    ),
  );
  results.forEach((r, k) => acc.set(r.acc, 3 * Math.floor((k * n) / size)));
}

function argInt(index, fallback, name) {
  const text = process.argv[index];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`gadget-demo: ${name} must be a whole number >= 1 (got ${JSON.stringify(text)})\n`);
    process.exit(2);
  }
  return n;
}

/** Positions, velocities, accelerations (x, y, z per body) and masses (a plain array: sent with every task). */
function initialState(n) {
  let seed = 12345;
  const random = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
  const pos = new Float64Array(3 * n);
  const acc = new Float64Array(3 * n);
  const mass = new Array(n);
  const vel = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    // A uniform ball of radius 1 at rest, equal masses adding up to 1.
    let x, y, z;
    do {
      x = 2 * random() - 1;
      y = 2 * random() - 1;
      z = 2 * random() - 1;
    } while (x * x + y * y + z * z > 1);
    pos.set([x, y, z], 3 * i);
    mass[i] = 1 / n;
  }
  return { n, pos, vel, acc, mass };
}

function kick({ vel, acc }, dt) {
  for (let i = 0; i < vel.length; i++) vel[i] += acc[i] * dt;
}

function drift({ pos, vel }, dt) {
  for (let i = 0; i < pos.length; i++) pos[i] += vel[i] * dt;
}

function energy({ n, pos, vel, mass }) {
  let kinetic = 0;
  let potential = 0;
  for (let i = 0; i < n; i++) {
    kinetic += 0.5 * mass[i] * (vel[3 * i] ** 2 + vel[3 * i + 1] ** 2 + vel[3 * i + 2] ** 2);
    for (let j = i + 1; j < n; j++) {
      const dx = pos[3 * j] - pos[3 * i];
      const dy = pos[3 * j + 1] - pos[3 * i + 1];
      const dz = pos[3 * j + 2] - pos[3 * i + 2];
      potential -= (mass[i] * mass[j]) / Math.sqrt(dx * dx + dy * dy + dz * dz + EPS2);
    }
  }
  return kinetic + potential;
}

/** One task: the accelerations of bodies start..end-1 from all positions, as [ax, ay, az, ...]. */
function accelerations({ pos, mass, start, end }) {
  const n = mass.length;
  const acc = new Array(3 * (end - start));
  for (let i = start; i < end; i++) {
    let ax = 0;
    let ay = 0;
    let az = 0;
    const xi = pos[3 * i];
    const yi = pos[3 * i + 1];
    const zi = pos[3 * i + 2];
    for (let j = 0; j < n; j++) {
      const dx = pos[3 * j] - xi;
      const dy = pos[3 * j + 1] - yi;
      const dz = pos[3 * j + 2] - zi;
      const r2 = dx * dx + dy * dy + dz * dz + EPS2;
      const f = mass[j] / (r2 * Math.sqrt(r2));
      ax += f * dx;
      ay += f * dy;
      az += f * dz;
    }
    acc[3 * (i - start)] = ax;
    acc[3 * (i - start) + 1] = ay;
    acc[3 * (i - start) + 2] = az;
  }
  return { acc };
}

// Last, so that everything above is defined: the application, or its tasks served on a slot or in a thread.
await runDemo(accelerations, main);
