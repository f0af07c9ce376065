// `concertina simulate`'s summary for a trace (issue 17): --max-jobs counts the jobs kept, and the summary says how
// many SWF records were read and skipped (and why) to get them; it names only the settings that applied (the
// malleability approach and policy are "not applicable" to a workload of rigid jobs), in the text and in --json.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDirForFile } from './harness.js';

const tmp = tempDirForFile('concertina-simulate-summary-');
const record = (n: number, submit: number, runtime: number, procs: number) =>
  `${n} ${submit} -1 ${runtime} ${procs} -1 -1 ${procs} ${Math.max(runtime, 1)} -1 1 -1 -1 -1 -1 -1 -1 -1`;

function trace(): string {
  // Records 2 (run time 0), 3 (malformed) and 5 (no processors) are skipped: the 3rd job kept is record 6.
  const file = path.join(tmp.path, 'mixed.swf');
  writeFileSync(
    file,
    [
      '; MaxProcs: 8',
      record(1, 0, 100, 2),
      record(2, 10, 0, 2),
      '3 20 x',
      record(4, 30, 50, 4),
      record(5, 40, 50, -1),
      record(6, 50, 10, 1),
      record(7, 60, 10, 1),
      '',
    ].join('\n'),
  );
  return file;
}

describe('simulate summary of a trace', () => {
  it('--max-jobs N keeps N jobs, and --json says how many records were read and skipped, and why', async () => {
    const r = await runCli('simulate', '--json', '--grid', 'single:8', '--workload', trace(), '--max-jobs', '3');
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(s).toMatchObject({ jobs: 3, completed: 3, swf_records_read: 6, swf_records_skipped: 3, max_jobs: 3 });
    expect(s.swf_skipped).toEqual(
      expect.arrayContaining([
        { reason: 'run time not positive', records: 1 },
        { reason: 'malformed line', records: 1 },
        { reason: 'no processor count', records: 1 },
      ]),
    );
    expect(s.swf_skipped).toHaveLength(3);
    // The whole trace: every record read, no --max-jobs.
    const all = JSON.parse(
      (await runCli('simulate', '--json', '--grid', 'single:8', '--workload', trace())).stdout,
    ) as Record<string, unknown>;
    expect(all).toMatchObject({ jobs: 4, swf_records_read: 7, swf_records_skipped: 3, max_jobs: null });
  });

  it('the text summary has a row for the records read and skipped', async () => {
    const r = await runCli('simulate', '--grid', 'single:8', '--workload', trace(), '--max-jobs', '3');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^SWF records +6 +read to keep 3 jobs \(--max-jobs 3\); 3 skipped: /m);
    for (const why of ['1 run time not positive', '1 malformed line', '1 no processor count'])
      expect(r.stdout).toContain(why);
  });

  it('names the approach and policy as not applicable to rigid jobs only, in the text and --json', async () => {
    const json = JSON.parse(
      (
        await runCli(
          'simulate',
          '--json',
          '--grid',
          'single:8',
          '--workload',
          trace(),
          '--approach',
          'pwa',
          '--policy',
          'egs',
        )
      ).stdout,
    ) as Record<string, unknown>;
    expect(json).toMatchObject({ approach: 'not applicable', policy: 'not applicable' });
    const text = (await runCli('simulate', '--grid', 'single:8', '--workload', trace())).stdout;
    expect(text).toContain('approach and policy not applicable (rigid jobs only)');
    expect(text).not.toMatch(/approach pra|policy fpsma/);
  });

  it('names them when a job is malleable, and gives no SWF figures for a jobs file', async () => {
    const file = path.join(tmp.path, 'jobs.json');
    const jobs = [
      { kind: 'rigid', components: [{ processors: 2, program: 'a' }], app: { model: 'fixed', runtime: 100 } },
      {
        kind: 'malleable',
        components: [{ min: 2, max: 8, program: 'b' }],
        submitTime: 10,
        app: { model: 'amdahl', serial: 10, parallel: 400 },
      },
    ];
    writeFileSync(file, JSON.stringify({ jobs }));
    const r = await runCli(
      'simulate',
      '--json',
      '--grid',
      'single:8',
      '--workload',
      file,
      '--approach',
      'pwa',
      '--policy',
      'egs',
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(s).toMatchObject({ approach: 'pwa', policy: 'egs' });
    expect(s).not.toHaveProperty('swf_records_read');
    const text = (
      await runCli('simulate', '--grid', 'single:8', '--workload', file, '--approach', 'pwa', '--policy', 'egs')
    ).stdout;
    expect(text).toContain('approach pwa, policy egs');
    expect(text).not.toContain('SWF records');
  });
});
