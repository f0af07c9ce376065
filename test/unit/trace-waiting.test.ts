// Without a tries limit (how `simulate` replays an SWF trace) a job that does not fit waits rather than fails, and
// waiting costs nothing: it reports its first failed try only, however many polls pass until it starts (issue 17).
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, type JobSpec } from '../../core/model/schemas.js';
import { singleCluster } from '../../core/sim/grids.js';
import { simulate } from '../../core/sim/simulate.js';

// Job a holds the whole 4-processor cluster for 10,000 s; b (4 processors) waits for it through 166 polls of 60 s.
const job = (id: string, submitTime: number, runtime: number): JobSpec => ({
  id,
  kind: 'rigid',
  components: [{ processors: 4, program: 'swf', args: [], inputFiles: [] }],
  placement: 'wf',
  submitTime,
  walltime: runtime,
  app: { model: 'fixed', runtime },
});

function run(triesThreshold: number) {
  const failedTries: SchedulerEvent[] = [];
  const outcome = simulate(
    {
      grid: gridSpecSchema.parse(singleCluster(4)),
      jobs: [job('a', 0, 10_000), job('b', 1, 100)],
      seed: 1,
      pollIntervalS: 60,
      scheduler: { approach: 'pra', policy: 'fpsma', triesThreshold },
    },
    { onEvent: (e) => void (e.type === 'placement.failed' && failedTries.push(e)) },
  );
  return { b: outcome.jobs.find((j) => j.id === 'b')!, failedTries };
}

describe('a job without a tries limit', () => {
  it('fails once its tries are exhausted when there is a limit (the KOALA paper)', () => {
    const { b, failedTries } = run(3);
    expect(b.state).toBe('failed');
    expect(failedTries).toHaveLength(3);
  });

  it('waits until it fits, reporting its first failed try only', () => {
    const { b, failedTries } = run(Number.POSITIVE_INFINITY);
    expect(b).toMatchObject({ state: 'completed', start: 10_000, tries: 1 });
    expect(failedTries).toHaveLength(1);
  });
});
