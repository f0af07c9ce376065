// Values of the CLI's flags: each parser turns the text into a value or throws a UsageError naming the flag.
import { Option } from 'commander';
import type { ThresholdScope } from '../../core/scheduler/cluster-state.js';
import { UsageError } from './export.js';

export const MAX_SEED = 2 ** 32 - 1; // the generator folds seeds to 32 bits

export function choice(flag: string, allowed: readonly string[]): (value: string) => string {
  return (value) => {
    if (!allowed.includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
    return value;
  };
}

export function wholeNumber(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new UsageError(`${flag} must be a whole number from ${min} to ${max} (got "${value}")`);
    }
    return n;
  };
}

export function seconds(flag: string, min: number): (value: string) => number {
  return (value) => {
    const n = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isFinite(n) || n < min)
      throw new UsageError(`${flag} must be a number of seconds, at least ${min} (got "${value}")`);
    return n;
  };
}

/** A fraction in (0, 1], 1 included (a threshold may be the whole cluster). */
export function fractionUpToOne(flag: string): (value: string) => number {
  return (value) => {
    const n = /^(0?\.\d+|1(\.0*)?)$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!(n > 0 && n <= 1))
      throw new UsageError(`${flag} must be a fraction above 0 and at most 1, e.g. 0.95 (got "${value}")`);
    return n;
  };
}

export function fraction(flag: string): (value: string) => number {
  return (value) => {
    const n = /^0?\.\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!(n > 0 && n < 1))
      throw new UsageError(`${flag} must be a fraction between 0 and 1, e.g. 0.3 (got "${value}")`);
    return n;
  };
}

export function thresholdScopeOption(fallback: ThresholdScope, prefix = ''): Option {
  return new Option(
    '--threshold-scope <scope>',
    `${prefix}what the threshold caps: growth (only what growth adds) or all (everything Concertina holds)`,
  )
    .default(fallback)
    .argParser(choice('--threshold-scope', ['growth', 'all'] as const));
}
