// `concertina simulate --fpe-variant`: jobs submitted with an evolution profile (assets/workloads/sample-fpe.json)
// are fitted by the variant named; the summary names it; a variant that does not exist is refused at the flag.
import { describe, expect, it } from 'vitest';
import { runCli } from './harness.js';

const sample = 'assets/workloads/sample-fpe.json';
const summary = async (variant: string) => {
  const r = await runCli('simulate', '--json', '--no-background', '--workload', sample, '--fpe-variant', variant);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { fpe_variant: string; jobs: number; completed: number; mean_avg_size: number };
};

describe('simulate with profiled evolving jobs', () => {
  it('runs every job of the sample to completion under the variant named, and says which', async () => {
    const evolving = await summary('2X+c');
    expect(evolving).toMatchObject({ fpe_variant: '2X+c', jobs: 21, completed: 21 });
    // The rigid baseline holds each profiled job's peak throughout: its jobs are larger on average.
    const rigid = await summary('rigid');
    expect(rigid).toMatchObject({ fpe_variant: 'rigid', completed: 21 });
    expect(rigid.mean_avg_size).toBeGreaterThan(evolving.mean_avg_size);
  });

  it('refuses an unknown variant at the flag', async () => {
    const r = await runCli('simulate', '--workload', sample, '--fpe-variant', '3X');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--fpe-variant must be one of rigid, noX, 2X, 2X+c, infX, infX+c (got "3X")');
  });
});
