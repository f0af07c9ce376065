#!/usr/bin/env node
// An evolving application (after the AMR code of the CooRMv2 paper): it integrates a field over [0, 1] on an
// adaptively refined mesh, step after step, while the field changes. Features (narrow peaks) appear one by one and
// later fade, so the mesh, its working set, grows and shrinks on its own; cells are split where Simpson's error
// estimate is high and merged back where it is low. Each step the cells are evaluated by its `size` processors:
// this process and the processes it recruits on the slots Concertina holds (this file run with --serve-slot), or
// worker threads without stubs; work/ledger.json in the job directory says who evaluated how many cells. It
// asks Concertina for the processors its working set needs (cells / cells-per-processor) through the SDK's
// update(), announced ahead when given an announce time, and obeys shrink requests like the malleable demos. It
// checks itself: every step's integral against the exact one; the done note gives the worst relative error.
//
//   CONCERTINA_JOB_DIR=... CONCERTINA_SIZE=1 CONCERTINA_MIN=1 CONCERTINA_MAX=8 \
//     node amr-demo.mjs [steps] [cells-per-processor] [step-ms] [announce-s]
//
// steps (default 400); cells-per-processor (default 150); step-ms (default 0): each step lasts at least this long,
// standing in for a heavier kernel so that a run can be watched; announce-s (default 0): grows are asked for this
// many seconds ahead (from the field's known schedule; step-ms turns seconds into steps, so it needs one), else
// when the mesh needs them.
import { Processors, runDemo } from './demo-processors.mjs';

/** The field: PEAKS Gaussians of width WIDTH at fixed centres, each switched on and off smoothly over RAMP of the run. */
const PEAKS = 8;
const WIDTH = 0.004;
const RAMP = 0.05;
/** Error allowed per unit length of the domain (Simpson's estimate). */
const TOLERANCE = 1e-9;
/** Coarsest and finest mesh levels (a level-L cell is 2^-L wide). */
const BASE_LEVEL = 4;
const MAX_LEVEL = 24;
/** Steps a smaller need must last before processors are given back (no thrashing on a mesh that wavers). */
const SHRINK_PATIENCE = 5;
/** Steps before asking again for a size that was refused. */
const REFUSAL_BACKOFF = 20;
/** Decision: a step's results are accepted when the integral is within this of the exact value (relative). */
const ACCEPTED_ERROR = 1e-6;

async function main() {
  const { connect } = await import('../sdk/concertina-app.mjs');
  const steps = argInt(2, 400, 'steps', 2);
  const cellsPerProcessor = argInt(3, 150, 'cells-per-processor', 1);
  const stepMs = argInt(4, 0, 'step-ms', 0);
  const announceS = argInt(5, 0, 'announce-s', 0);
  let processors;
  let refusedSize = 0;
  let lastAsked = 0;
  let refusedAtStep = -Infinity;
  let step = 0;
  /** The sizes it computed with, in order: reported in the done note. */
  const sizes = [];
  const app = await connect({
    onShrink: (processors, _mandatory, { size, min }) => Math.min(processors, size - min),
    onResized: (size) => {
      sizes.push(size);
      return processors.resize(size);
    },
    onRefused: (reason, { size }) => {
      // A refused grow is not asked for again at once; a refused shrink is asked again by the SDK itself.
      if (lastAsked > size) {
        refusedSize = lastAsked;
        refusedAtStep = step;
      }
      process.stderr.write(`amr-demo: update refused at step ${step}: ${reason}\n`);
    },
  });
  sizes.unshift(app.size);
  processors = new Processors(app, import.meta.url, simpson, { measure: (r) => r.coarse.length });
  await processors.resize(app.size);

  let mesh = uniformMesh(BASE_LEVEL);
  let worst = 0;
  let smallerFor = 0;
  let peakCells = mesh.level.length;
  let updates = 0;
  while (step < steps && !app.stopRequested) {
    const started = Date.now();
    const t = step / (steps - 1);
    // Refined until every cell meets the tolerance (each pass splits the cells that do not), then integrated.
    let evaluated = await evaluate(processors, mesh, t);
    for (let pass = 0; pass < MAX_LEVEL; pass++) {
      const refined = refine(mesh, evaluated);
      if (refined === mesh) break;
      mesh = refined;
      evaluated = await evaluate(processors, mesh, t);
    }
    const { coarse, fine } = evaluated;
    let integral = 0;
    for (let i = 0; i < fine.length; i++) integral += fine[i] + (fine[i] - coarse[i]) / 15;
    const exact = exactIntegral(t);
    worst = Math.max(worst, Math.abs(integral - exact) / exact);
    const cells = mesh.level.length;
    // Cells the field no longer needs are merged before the next step.
    mesh = coarsen(mesh, evaluated);
    peakCells = Math.max(peakCells, cells);
    step++;

    // The processors this mesh needs, and (announced) what the field's schedule says it will need.
    const need = (n) => Math.min(app.max, Math.max(app.min, Math.ceil(n / cellsPerProcessor)));
    const now = need(cells);
    const ahead =
      announceS > 0 && stepMs > 0
        ? need(cells * (activity(Math.min(1, t + (announceS * 1000) / stepMs / (steps - 1))) / activity(t)))
        : now;
    const refused = (n) => n >= refusedSize && step - refusedAtStep < REFUSAL_BACKOFF;
    const ask = async (n, options) => {
      lastAsked = n;
      if (await app.update(n, options)) updates++;
    };
    smallerFor = now < app.target ? smallerFor + 1 : 0;
    if (ahead > app.target && !refused(ahead)) await ask(ahead, ahead > now ? { announceS } : {});
    else if (now > app.target && !refused(now)) await ask(now);
    else if (smallerFor >= SHRINK_PATIENCE && ahead < app.target) {
      await ask(Math.max(now, ahead));
      smallerFor = 0;
    }
    await app.sync();
    await processors.resize(app.size);
    app.progress(step / steps, `size ${app.size}: step ${step}/${steps}, ${cells} cells`);
    const rest = stepMs - (Date.now() - started);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  await processors.close();
  processors.writeLedger();
  const summary = `${step}/${steps} steps, mesh of up to ${peakCells} cells, ${updates} updates, sizes ${sizes.join('>')}, worst relative error ${worst.toExponential(2)}`;
  const complete = step === steps && worst < ACCEPTED_ERROR;
  app.done(complete, app.stopRequested && step < steps ? `stopped (${app.stopReason}) after ${summary}` : summary);
}

function argInt(index, fallback, name, least) {
  const text = process.argv[index];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < least) {
    process.stderr.write(`amr-demo: ${name} must be a whole number >= ${least} (got ${JSON.stringify(text)})\n`);
    process.exit(2);
  }
  return n;
}

// ---- the field ---------------------------------------------------------------------------------------------------

const centre = (k) => 0.15 + (0.7 * k) / (PEAKS - 1);
/** Peak k is on from its start to its end: they appear one by one until 40 % of the run, and fade from 55 % to 90 %. */
const onAt = (k) => (k === 0 ? -Infinity : (0.4 * k) / (PEAKS - 1));
const offAt = (k) => (k === 0 ? Infinity : 0.55 + (0.35 * (PEAKS - 1 - k)) / (PEAKS - 1));

function smoothstep(u) {
  const x = Math.min(1, Math.max(0, u));
  return x * x * (3 - 2 * x);
}

/** The amplitude of peak k at time t (0..1 of the run). */
function amplitude(k, t) {
  return smoothstep((t - onAt(k)) / RAMP) * smoothstep((offAt(k) - t) / RAMP);
}

/** How much of the field is on: the sum of the amplitudes (the mesh follows it). */
function activity(t) {
  let sum = 0;
  for (let k = 0; k < PEAKS; k++) sum += amplitude(k, t);
  return sum;
}

/** The peaks lie at least 30 widths inside [0, 1], so each one's integral is its amplitude times WIDTH·√π to double precision. */
function exactIntegral(t) {
  return activity(t) * WIDTH * Math.sqrt(Math.PI);
}

function field(x, amplitudes) {
  let sum = 0;
  for (let k = 0; k < PEAKS; k++) {
    if (amplitudes[k] === 0) continue;
    const u = (x - centre(k)) / WIDTH;
    sum += amplitudes[k] * Math.exp(-u * u);
  }
  return sum;
}

// ---- the mesh ----------------------------------------------------------------------------------------------------

/** Cells in order over [0, 1]: cell i is [index/2^level, (index+1)/2^level). */
function uniformMesh(level) {
  const n = 2 ** level;
  return { level: Array.from({ length: n }, () => level), index: Array.from({ length: n }, (_, i) => i) };
}

const errorOf = ({ coarse, fine }, i) => Math.abs(fine[i] - coarse[i]) / 15;

/** One refinement pass: cells whose error estimate is above their share of the tolerance are split (the same mesh when none is). */
function refine(mesh, evaluated) {
  const level = [];
  const index = [];
  let split = false;
  for (let i = 0; i < mesh.level.length; i++) {
    const l = mesh.level[i];
    const k = mesh.index[i];
    if (errorOf(evaluated, i) > TOLERANCE * 2 ** -l && l < MAX_LEVEL) {
      level.push(l + 1, l + 1);
      index.push(2 * k, 2 * k + 1);
      split = true;
    } else {
      level.push(l);
      index.push(k);
    }
  }
  return split ? { level, index } : mesh;
}

/** Two sibling cells whose merged error would stay well below the tolerance (Simpson's error grows 32-fold with the width) are merged. */
function coarsen(mesh, evaluated) {
  const level = [];
  const index = [];
  const n = mesh.level.length;
  const error = (i) => errorOf(evaluated, i);
  for (let i = 0; i < n; i++) {
    const l = mesh.level[i];
    const k = mesh.index[i];
    const width = 2 ** -l;
    const sibling = i + 1 < n && k % 2 === 0 && mesh.level[i + 1] === l && mesh.index[i + 1] === k + 1;
    if (sibling && l > BASE_LEVEL && 16 * (error(i) + error(i + 1)) < (TOLERANCE * 2 * width) / 4) {
      level.push(l - 1);
      index.push(k / 2);
      i++;
      continue;
    }
    level.push(l);
    index.push(k);
  }
  return { level, index };
}

// ---- the processors ----------------------------------------------------------------------------------------------

/**
 * Simpson's rule on each cell whole (coarse) and as two halves (fine), the cells split evenly among the processors.
 * Each cell's values depend on the cell alone, so they do not depend on the size.
 */
async function evaluate(processors, mesh, t) {
  const n = mesh.level.length;
  const size = processors.units.length;
  const coarse = new Float64Array(n);
  const fine = new Float64Array(n);
  const amplitudes = Array.from({ length: PEAKS }, (_, k) => amplitude(k, t));
  await Promise.all(
    processors.units.map(async (unit, w) => {
      const start = Math.floor((w * n) / size);
      const end = Math.floor(((w + 1) * n) / size);
      // Plain arrays: they go to other processes as JSON, which keeps every double exactly.
      const left = [];
      const right = [];
      for (let i = start; i < end; i++) {
        left.push(mesh.index[i] * 2 ** -mesh.level[i]);
        right.push((mesh.index[i] + 1) * 2 ** -mesh.level[i]);
      }
      const result = await unit.call({ left, right, amplitudes });
      coarse.set(result.coarse, start);
      fine.set(result.fine, start);
    }),
  );
  return { coarse, fine };
}

/** One task: Simpson's rule on the cells [left[i], right[i]], whole and halved. */
function simpson({ left, right, amplitudes }) {
  const n = left.length;
  const coarse = new Array(n);
  const fine = new Array(n);
  for (let i = 0; i < n; i++) {
    const a = left[i];
    const b = right[i];
    const m = (a + b) / 2;
    const fa = field(a, amplitudes);
    const fb = field(b, amplitudes);
    const fm = field(m, amplitudes);
    const fl = field((a + m) / 2, amplitudes);
    const fr = field((m + b) / 2, amplitudes);
    coarse[i] = ((b - a) / 6) * (fa + 4 * fm + fb);
    fine[i] = ((b - a) / 12) * (fa + 4 * fl + 2 * fm + 4 * fr + fb);
  }
  return { coarse, fine };
}

// Last, so that everything above is defined: the application, or its tasks served on a slot or in a thread.
await runDemo(simpson, main);
