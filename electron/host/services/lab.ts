// The Lab's methods (`lab.*`): experiments and whole simulations, each run in a worker thread by the LabRunner.
import type { LabRunner } from '../../lab/runner.js';
import { labExperimentInfos } from '../../lab/registry.js';
import type { ServiceHandlers } from './run.js';

export function labHandlers(
  runner: LabRunner,
): ServiceHandlers<'lab.experiments' | 'lab.start' | 'lab.cancel' | 'lab.list' | 'lab.result'> {
  return {
    'lab.experiments': () => ({ ok: true, value: { experiments: labExperimentInfos() } }),
    'lab.start': (spec) => ({ ok: true, value: { runId: runner.start(spec) } }),
    'lab.cancel': ({ runId }) => runner.cancel(runId),
    'lab.list': () => ({ ok: true, value: { runs: runner.list() } }),
    'lab.result': ({ runId }) => runner.result(runId),
  };
}
