// NAS FT, as malleable in the KOALA paper: it runs only on a power of two processors, so it takes the largest
// power of two not above what it is given and releases the rest. About 2 min on 2 processors, 1 min at best.
import { speedupCurve, type AppModel } from './model.js';

// Fitted so that t(2) = 120 s and the minimum, t(16) = 60 s, as Figure 6 describes (a, b, c from those two points
// with the minimum at sqrt(b/c) = 16).
const runtime = speedupCurve(40.41, 156.73, 0.6122);

export function largestPowerOfTwo(n: number): number {
  if (n < 1) return 0;
  return 2 ** Math.floor(Math.log2(n));
}

export const ft: AppModel = {
  name: 'ft',
  runtime,
  acceptGrow(current, offered, max) {
    return Math.max(0, largestPowerOfTwo(Math.min(current + offered, max)) - current);
  },
  acceptShrink(current, requested, min) {
    const left = Math.max(current - requested, min);
    const target = largestPowerOfTwo(left);
    // Decision: with no power of two between its minimum and what the request leaves, FT goes down to its minimum
    // (it runs there, as usableSize says) rather than refuse: a mandatory shrink is then always obeyed.
    const keep = target >= min ? target : min;
    return Math.max(0, current - keep);
  },
  usableSize(size, min) {
    const p = largestPowerOfTwo(size);
    return p >= min ? p : size;
  },
};
