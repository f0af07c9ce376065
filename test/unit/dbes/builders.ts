// Short builders for DBES's plain cluster model (core/dbes/model.ts).
import {
  DEFAULT_FAIRNESS,
  emptyFairnessAccount,
  type DbesCluster,
  type DbesRunningJob,
  type DbesWaitingJob,
  type Expansion,
} from '../../../core/dbes/model.js';

export function rigid(id: string, size: number, end: number): DbesRunningJob {
  return { id, size, min: size, max: size, malleable: false, end, expansions: [] };
}

/** A running malleable job; `expansions` add to `min` to make its size. */
export function malleable(
  id: string,
  min: number,
  max: number,
  end: number,
  expansions: Expansion[] = [],
): DbesRunningJob {
  const extra = expansions.reduce((s, e) => s + e.processors, 0);
  return { id, size: min + extra, min, max, malleable: true, end, expansions };
}

export function waiting(id: string, need: number, walltime: number, max = need): DbesWaitingJob {
  return { id, need, walltime, malleable: max > need, max };
}

export function forJob(job: string, processors: number): Expansion {
  return { processors, step: 1, forJob: job };
}

export function secondStep(processors: number): Expansion {
  return { processors, step: 2, forJob: undefined };
}

export function cluster(
  capacity: number,
  running: DbesRunningJob[],
  queue: DbesWaitingJob[],
  more: Partial<DbesCluster> = {},
): DbesCluster {
  return {
    now: 0,
    capacity,
    running,
    waiting: queue,
    requests: [],
    reservationDepth: 5,
    fairness: DEFAULT_FAIRNESS,
    account: emptyFairnessAccount(),
    ...more,
  };
}
