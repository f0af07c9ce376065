// The placement policies of interactive periodic tasks, by name.
import { bestFit } from './best-fit.js';
import { firstFit } from './first-fit.js';
import type { TaskPlacementPolicy } from './policy.js';
import { worstFit } from './worst-fit.js';

export const TASK_PLACEMENTS = ['first-fit', 'best-fit', 'worst-fit'] as const;
export type TaskPlacementName = (typeof TASK_PLACEMENTS)[number];

export const taskPlacements: Readonly<Record<TaskPlacementName, TaskPlacementPolicy>> = {
  'first-fit': firstFit,
  'best-fit': bestFit,
  'worst-fit': worstFit,
};

export type { TaskPlacementPolicy } from './policy.js';
