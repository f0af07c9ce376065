#!/usr/bin/env node
// An FT-like malleable application (after the NAS FT benchmark of the KOALA paper): it transforms many blocks of
// complex data with a radix-2 FFT, forward and back, split among its `size` processors, and checks every block
// (Parseval's identity and the round trip). Like FT it runs only on a power of two processors: from an offer it
// takes the largest power of two it can reach, on a shrink it goes down to a power of two, never below its minimum.
// Processor 0 is this process; the others are processes it recruits on the slots Concertina holds (this file run
// with --serve-slot by each slot's stub), or worker threads when it runs without stubs (demo-processors.mjs).
//
//   CONCERTINA_JOB_DIR=... CONCERTINA_SIZE=2 CONCERTINA_MIN=1 CONCERTINA_MAX=8 node ft-demo.mjs [blocks] [log2-points]
//
// blocks (default 400000): FFTs to compute, its amount of work; log2-points (default 12): each block has 2^log2-points
// points. At the end it writes work/ledger.json in the job directory: which process (slot, host, pid) verified how
// many blocks.
import { Processors, runDemo } from './demo-processors.mjs';

/** Blocks one processor transforms per step; a step is the time between two safe points. */
const BLOCKS_PER_TASK = 4;
/**
 * Decision: the default amount of work runs for minutes, so that a job submitted from the console lives long enough
 * to be grown and shrunk (measured: 437 s on 2 processors, on a machine whose 2 cores were loaded 13 to 15; the
 * earlier 4096 blocks took 3 s).
 */
const DEFAULT_BLOCKS = 400_000;

async function main() {
  const { connect } = await import('../sdk/concertina-app.mjs');
  const blocks = argInt(2, DEFAULT_BLOCKS, 'blocks');
  const log2 = argInt(3, 12, 'log2-points');
  if (log2 > 24) fail('log2-points must be at most 24');
  let processors;
  const app = await connect({
    onOffer: (processors, { target, max }) => largestPowerOfTwo(Math.min(target + processors, max)) - target,
    onShrink: (processors, _mandatory, { size, min }) => size - powerOfTwoToKeep(size - processors, min, size),
    onResized: (size) => processors.resize(size),
  });
  processors = new Processors(app, import.meta.url, transform, { measure: (r) => r.verified });
  // Given a size that is not a power of two, it uses the largest power of two it has and lets the rest go.
  await app.release(app.size - powerOfTwoToKeep(app.size, app.min, app.size));
  await processors.resize(app.size);

  let next = 0;
  let verified = 0;
  let worst = 0;
  let checksum = 0;
  while (next < blocks && !app.stopRequested) {
    // Blocks are handed out in order and results summed in that order, so the checksum is the same at any size.
    const tasks = processors.units.map(() => {
      const first = next;
      next = Math.min(blocks, next + BLOCKS_PER_TASK);
      return { first, count: next - first, log2 };
    });
    const results = await Promise.all(processors.units.map((unit, i) => unit.call(tasks[i])));
    for (const r of results) {
      verified += r.verified;
      worst = Math.max(worst, r.worstError);
      checksum += r.energy;
    }
    await app.sync();
    await processors.resize(app.size);
    app.progress(next / blocks, `size ${app.size}: ${next}/${blocks} blocks`);
  }
  await processors.close();
  processors.writeLedger();
  const complete = next >= blocks && verified === blocks;
  const summary = `${verified}/${blocks} FFTs of 2^${log2} points verified (worst error ${worst.toExponential(2)}), energy ${checksum.toPrecision(12)}`;
  app.done(complete, app.stopRequested && next < blocks ? `stopped (${app.stopReason}) after ${summary}` : summary);
}

function largestPowerOfTwo(n) {
  return n < 1 ? 0 : 2 ** Math.floor(Math.log2(n));
}

/** The power of two to keep when going down to `wanted`: never below `min`, never more than `size`. */
function powerOfTwoToKeep(wanted, min, size) {
  const down = largestPowerOfTwo(Math.max(wanted, min));
  // A minimum that is not a power of two: the smallest power of two above it, if it has that many.
  return down >= min ? down : Math.min(size, 2 ** Math.ceil(Math.log2(min)));
}

function argInt(index, fallback, name) {
  const text = process.argv[index];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`${name} must be a whole number >= 1 (got ${JSON.stringify(text)})`);
  return n;
}

function fail(message) {
  process.stderr.write(`ft-demo: ${message}\n`);
  process.exit(2);
}

/** One task: FFTs of blocks first..first+count-1, forward and back, each checked. */
function transform({ first, count, log2 }) {
  const n = 2 ** log2;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  let verified = 0;
  let worstError = 0;
  let energy = 0;
  for (let block = first; block < first + count; block++) {
    const input = fill(re, im, block);
    const timeEnergy = sumSquares(re, im);
    fft(re, im, false);
    const freqEnergy = sumSquares(re, im) / n;
    fft(re, im, true);
    let error = Math.abs(timeEnergy - freqEnergy) / timeEnergy;
    for (let i = 0; i < n; i++)
      error = Math.max(error, Math.abs(re[i] - input[2 * i]), Math.abs(im[i] - input[2 * i + 1]));
    if (error < 1e-9) verified++;
    worstError = Math.max(worstError, error);
    energy += timeEnergy;
  }
  return { verified, worstError, energy };
}

/** Deterministic pseudo-random input for `block` (a linear congruential generator seeded by it); returns a copy. */
function fill(re, im, block) {
  let state = (block * 2654435761 + 1) >>> 0;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  const copy = new Float64Array(2 * re.length);
  for (let i = 0; i < re.length; i++) {
    re[i] = copy[2 * i] = random();
    im[i] = copy[2 * i + 1] = random();
  }
  return copy;
}

function sumSquares(re, im) {
  let s = 0;
  for (let i = 0; i < re.length; i++) s += re[i] * re[i] + im[i] * im[i];
  return s;
}

/** In-place iterative radix-2 FFT (Cooley-Tukey); the inverse is scaled by 1/n. */
function fft(re, im, inverse) {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = ((inverse ? 2 : -2) * Math.PI) / len;
    const wRe = Math.cos(angle);
    const wIm = Math.sin(angle);
    for (let start = 0; start < n; start += len) {
      let uRe = 1;
      let uIm = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = start + k;
        const b = a + len / 2;
        const tRe = re[b] * uRe - im[b] * uIm;
        const tIm = re[b] * uIm + im[b] * uRe;
        re[b] = re[a] - tRe;
        im[b] = im[a] - tIm;
        re[a] += tRe;
        im[a] += tIm;
        const nextRe = uRe * wRe - uIm * wIm;
        uIm = uRe * wIm + uIm * wRe;
        uRe = nextRe;
      }
    }
  }
  if (inverse) {
    for (let i = 0; i < n; i++) {
      re[i] /= n;
      im[i] /= n;
    }
  }
}

// Last, so that everything above is defined: the application, or its tasks served on a slot or in a thread.
await runDemo(transform, main);
