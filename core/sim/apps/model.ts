// The application model a job's spec names: FT, GADGET-2, LeanMD, or a simple run-time curve, built from app-model.ts's
// parts (how a simulated application behaves).
import type { AppModelSpec } from '../../model/schemas.js';
import { anySizeApp, type AppModel } from './app-model.js';
import { ft } from './ft.js';
import { gadget2 } from './gadget2.js';
import { leanmd } from './leanmd.js';

export type { AppModel } from './app-model.js';

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
    case 'periodic':
      // Decision: an interactive job's driver runs its iterations (core/sim/interactive/periodic-apps.ts); any other
      // kind given this model runs for its fallback time.
      return anySizeApp('periodic', () => fallbackRuntime);
  }
}
