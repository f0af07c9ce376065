// @vitest-environment happy-dom
// A failed job's drawer says why: its end's reason, the last lines of its standard error as the host read them from
// the cluster, and where its output files are; text as text (no markup from a job's output reaches the page).
import { describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import JobDrawer from '../../renderer/src/components/JobDrawer.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import type { JobSummary } from '../../renderer/src/api/types.js';
import { fakeClient } from './fake-client.js';

const job: JobSummary = {
  id: 'job-7',
  name: 'ft',
  kind: 'malleable',
  state: 'failed',
  tries: 1,
  lastFailure: '',
  size: 0,
  min: 1,
  max: 8,
  placement: 'wf',
  clusters: ['slurm'],
  submitted: 0,
};

interface Found {
  textContent: string | null;
  innerHTML: string;
}
const find = (selector: string): Found | null =>
  (globalThis as unknown as { document: { querySelector(s: string): Found | null } }).document.querySelector(selector);

async function drawerWith(ended: Record<string, unknown>) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const client = fakeClient({ 'jobs.list': { ok: true, value: { jobs: [job], total: 1, version: '1:1' } } });
  const stores = createStores(client);
  stores.activity.add({ type: 'job.started', t: 10, jobId: 'job-7', cluster: 'slurm', size: 1 });
  stores.activity.add({ type: 'job.ended', t: 12, jobId: 'job-7', state: 'failed', tries: 1, ...ended } as never);
  await stores.jobs.refresh();
  const wrapper = mount(JobDrawer, {
    props: { jobId: 'job-7' },
    global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
    attachTo: 'body',
  });
  await flushPromises();
  return wrapper;
}

describe('Job drawer: a failed job', () => {
  it('shows the end of its standard error and the paths of its output files', async () => {
    const wrapper = await drawerWith({
      reason: 'member 0 (41) failed: exit status 2 (the job has left squeue)',
      output: {
        stdout: '/scratch/c/jobs/j7/m0.out',
        stderr: '/scratch/c/jobs/j7/m0.err',
        stderrTail: 'line one\n<b>ft-demo</b>: blocks must be a whole number >= 1 (got "-5")',
      },
    });
    expect(find('[data-testid="job-failure-reason"]')!.textContent).toBe(
      'member 0 (41) failed: exit status 2 (the job has left squeue)',
    );
    expect(find('[data-testid="job-stderr"]')!.textContent).toBe(
      'line one\n<b>ft-demo</b>: blocks must be a whole number >= 1 (got "-5")',
    );
    expect(find('[data-testid="job-stderr"]')!.innerHTML).not.toContain('<b>');
    expect(find('[data-testid="job-stdout-path"]')!.textContent).toBe('stdout: /scratch/c/jobs/j7/m0.out');
    expect(find('[data-testid="job-stderr-path"]')!.textContent).toBe('stderr: /scratch/c/jobs/j7/m0.err');
    wrapper.unmount();
  });

  it('says when its standard error could not be read, and shows only the reason of a job that never ran', async () => {
    let wrapper = await drawerWith({ reason: 'exit status 1', output: { stdout: '/w/a.out', stderr: '/w/a.err' } });
    expect(find('[data-testid="job-stderr"]')!.textContent).toContain('could not be read');
    expect(find('[data-testid="job-stderr-path"]')!.textContent).toBe('stderr: /w/a.err');
    wrapper.unmount();
    wrapper = await drawerWith({ reason: 'slurm refused the job: invalid partition' });
    expect(find('[data-testid="job-failure-reason"]')!.textContent).toBe('slurm refused the job: invalid partition');
    expect(find('[data-testid="job-stderr"]')).toBeNull();
    wrapper.unmount();
  });
});
