// The console's reading of DBES events checked on the simulator's own: the DBES paper's example (A and B malleable on
// four processors, C waiting for 3) and a busier grid, played under dbes; every grow and every requested shrink of a
// DBES run finds its reason in its job's events, and the words match what the scheduler decided.
import { describe, expect, it } from 'vitest';
import type { SchedulerEvent } from '../../core/events.js';
import { gridSpecSchema, jobSpecSchema } from '../../core/model/schemas.js';
import { SimWorld } from '../../core/sim/world.js';
import { reasonText, resizeKey, resizeReasons } from '../../renderer/src/resize-reasons.js';

const job = (id: string, kind: 'malleable' | 'rigid', min: number, max: number, seconds: number, submitTime: number) =>
  jobSpecSchema.parse({
    id,
    kind,
    submitTime,
    walltime: seconds,
    app:
      kind === 'malleable' ? { model: 'amdahl', serial: 0, parallel: seconds } : { model: 'fixed', runtime: seconds },
    components: [kind === 'malleable' ? { min, max, program: 'x' } : { processors: min, program: 'x' }],
  });

function run(processors: number, jobs: ReturnType<typeof job>[]): SchedulerEvent[] {
  const w = new SimWorld({
    grid: gridSpecSchema.parse({ clusters: [{ name: 'c', processors }] }),
    jobs,
    seed: 1,
    background: false,
    scheduler: { policy: 'dbes' },
  });
  const events: SchedulerEvent[] = [];
  w.scheduler.on((e) => events.push(e));
  w.run();
  return events;
}

/** Per job: each job.grown and requested job.shrunk, in order, with the reason the console gives it. */
function explained(events: readonly SchedulerEvent[]): Array<[string, string, string]> {
  const byJob = new Map<string, SchedulerEvent[]>();
  for (const e of events) if ('jobId' in e) byJob.set(e.jobId, [...(byJob.get(e.jobId) ?? []), e]);
  const out: Array<[string, string, string]> = [];
  for (const [id, list] of byJob) {
    const reasons = resizeReasons(list);
    for (const e of list)
      if (e.type === 'job.grown' || (e.type === 'job.shrunk' && !e.voluntary))
        out.push([
          id,
          `${e.type === 'job.grown' ? '+' : '−'}${e.processors}@${e.t}`,
          reasonText(reasons.get(resizeKey(e))),
        ]);
  }
  return out;
}

describe('DBES events as the console reads them', () => {
  it("the paper's example: the second step, the steal for C and the expansion for C", () => {
    const lines = explained(
      run(4, [
        job('A', 'malleable', 1, 4, 3600, 0),
        job('B', 'malleable', 1, 4, 1800, 0),
        job('C', 'rigid', 3, 3, 600, 1),
      ]),
    );
    expect(lines.filter(([, , why]) => why === '')).toEqual([]);
    const texts = lines.map(([id, , why]) => `${id}: ${why}`);
    expect(texts).toContain('A: expanded (second step)');
    expect(texts).toContain('B: shrunk to expand C, from its second-step expansion');
    expect(texts).toContain('A: expanded for job C (step 1)');
  });

  it('a busier queue: every grow and every requested shrink has its reason', () => {
    const jobs = [
      ...Array.from({ length: 6 }, (_, i) => job(`m${i}`, 'malleable', 1, 8, 1200 + 300 * i, 60 * i)),
      ...Array.from({ length: 5 }, (_, i) => job(`r${i}`, 'rigid', 3 + i, 3 + i, 600, 100 + 150 * i)),
    ];
    const lines = explained(run(16, jobs));
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter(([, , why]) => why === '')).toEqual([]);
  });
});
