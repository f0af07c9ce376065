// How a simulated application behaves: its run time at a size, and how it answers grow and shrink messages.
import type { AppModelSpec } from '../../model/schemas.js';
import { ft } from './ft.js';
import { gadget2 } from './gadget2.js';
import { leanmd } from './leanmd.js';

export interface AppModel {
  readonly name: string;
  /** Seconds the whole run takes on `size` processors. */
  runtime(size: number): number;
  /** Of `offered` more processors, how many it takes given its current size and maximum. */
  acceptGrow(current: number, offered: number, max: number): number;
  /** Asked to give back `requested`, how many it releases given its current size and minimum. */
  acceptShrink(current: number, requested: number, min: number): number;
  /** The size it actually uses when given `size` (the rest it releases on its own). */
  usableSize(size: number, min: number): number;
}

/** An application that uses any size it is given. */
export function anySizeApp(name: string, runtime: (size: number) => number): AppModel {
  return {
    name,
    runtime,
    acceptGrow: (current, offered, max) => Math.max(0, Math.min(offered, max - current)),
    acceptShrink: (current, requested, min) => Math.max(0, Math.min(requested, current - min)),
    usableSize: (size) => size,
  };
}

/** Run time a + b/n + c·n: serial part, parallel part, and a per-processor overhead that makes it turn up. */
export function speedupCurve(a: number, b: number, c: number): (size: number) => number {
  return (n) => a + b / n + c * n;
}

export function appModel(spec: AppModelSpec | undefined, fallbackRuntime: number): AppModel {
  if (!spec) return anySizeApp('fixed', () => fallbackRuntime);
  switch (spec.model) {
    case 'ft':
      return ft;
    case 'gadget2':
      return gadget2;
    case 'fixed':
      return anySizeApp('fixed', () => spec.runtime);
    case 'amdahl':
      return anySizeApp('amdahl', (n) => spec.serial + spec.parallel / n);
    case 'evolving':
      // Decision: an evolving job runs its phases (apps/evolving.ts); any other kind given this model runs as long.
      return anySizeApp('evolving', () => spec.phases * spec.phaseS);
    case 'leanmd':
      return leanmd({ cells: spec.cells, runtimeS: spec.runtime, size: spec.size });
    case 'esp-evolving':
      // Decision: as for 'evolving', a job of another kind given this model runs its static time (apps/esp-evolving.ts).
      return anySizeApp('esp-evolving', () => spec.runtime);
  }
}
