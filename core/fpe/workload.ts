// The synthetic tests of the paper's evaluation (section 5.1): each test a queue of 15 to 20 applications, each of 1 to
// 10 steps of 500 to 3,600 s and 1 to 75 nodes, every figure drawn uniformly. Decision: durations are whole seconds
// (the paper does not say; whole numbers keep every time of the schedules exact).
import { Random } from '../random.js';
import type { EvolutionProfile, EpStep } from './evolution-profile.js';

export interface FpeWorkloadShape {
  readonly apps: readonly [number, number];
  readonly steps: readonly [number, number];
  readonly durationS: readonly [number, number];
  readonly nodes: readonly [number, number];
}

export const PAPER_WORKLOAD: FpeWorkloadShape = {
  apps: [15, 20],
  steps: [1, 10],
  durationS: [500, 3600],
  nodes: [1, 75],
};

/** Test number `index` (0-based) of the experiment with this seed; each test has its own stream, so it does not depend on how many are run. */
export function fpeTest(seed: number, index: number, shape: FpeWorkloadShape = PAPER_WORKLOAD): EvolutionProfile[] {
  const rng = new Random(seed).fork(`fpe-test-${index}`);
  const apps = rng.int(shape.apps[0], shape.apps[1]);
  const out: EvolutionProfile[] = [];
  for (let a = 0; a < apps; a++) {
    const steps = rng.int(shape.steps[0], shape.steps[1]);
    const ep: EpStep[] = [];
    for (let s = 0; s < steps; s++)
      ep.push({
        duration: rng.int(shape.durationS[0], shape.durationS[1]),
        nodes: rng.int(shape.nodes[0], shape.nodes[1]),
      });
    out.push(ep);
  }
  return out;
}
