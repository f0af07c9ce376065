// The stores, built once over one API client and provided to the components (tests build them over a fake).
import type { InjectionKey } from 'vue';
import { inject } from 'vue';
import type { ApiClient } from '../api/types.js';
import { defineGridStore, type GridStore } from './grid.js';
import { defineJobsStore, type JobsStore } from './jobs.js';
import { defineSubmitStore, type SubmitStore } from './submit.js';
import { defineSettingsStore, type SettingsStore } from './settings.js';
import { defineActivityStore, type ActivityStore } from './activity.js';
import { defineLabStore, type LabStore } from './lab.js';
import { defineTemplatesStore, type TemplatesStore } from './templates.js';
import { defineResetStore, type ResetStore } from './reset.js';
import { defineClustersStore, type ClustersStore } from './clusters.js';
import { definePlanStore, type PlanStore } from './plan.js';

export interface Stores {
  grid: GridStore;
  jobs: JobsStore;
  submit: SubmitStore;
  settings: SettingsStore;
  activity: ActivityStore;
  lab: LabStore;
  templates: TemplatesStore;
  reset: ResetStore;
  clusters: ClustersStore;
  plan: PlanStore;
}

export const STORES: InjectionKey<Stores> = Symbol('concertina-stores');

/** Needs an active Pinia (app.use(pinia) or setActivePinia). */
export function createStores(client: ApiClient): Stores {
  const settings = defineSettingsStore(client)();
  return {
    grid: defineGridStore(client)(),
    jobs: defineJobsStore(client)(),
    // The Submit form requires a walltime when the run's queue policy plans ahead (as Settings last read it).
    submit: defineSubmitStore(client, () => settings.planningPolicy)(),
    settings,
    activity: defineActivityStore(client)(),
    lab: defineLabStore(client)(),
    templates: defineTemplatesStore(client)(),
    reset: defineResetStore(client)(),
    clusters: defineClustersStore(client)(),
    plan: definePlanStore(client)(),
  };
}

export function useStores(): Stores {
  const stores = inject(STORES);
  if (!stores) throw new Error('the stores are not provided (app.provide(STORES, createStores(client)))');
  return stores;
}
