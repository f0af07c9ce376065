// @vitest-environment happy-dom
// The Submit form for fully-predictably evolving jobs: an evolving job sized by its evolution profile, edited as a
// list of steps (duration, processors); each step's error shown at the step, the host's too (a step too large for
// every cluster), and the spec the host receives.
import { describe, expect, it } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { defaultForm, fromSpec, toSpec, validate, validateSteps } from '../../renderer/src/stores/submit.js';
import { describeEvent, stepSizes } from '../../renderer/src/format.js';
import { mountSubmit } from './mount-submit.js';

describe('Submit form, evolving jobs with an evolution profile', () => {
  it('turns the steps into the spec (no min, max or model beside them), and back', () => {
    const form = {
      ...defaultForm(),
      kind: 'evolving' as const,
      profiled: true,
      program: 'fpe',
      steps: [
        { duration_s: 60, processors: 2 },
        { duration_s: 30, processors: 8 },
      ],
    };
    const spec = toSpec(form);
    expect(spec.components).toEqual([{ program: 'fpe' }]);
    expect(spec.profile).toEqual({
      steps: [
        { duration_s: 60, processors: 2 },
        { duration_s: 30, processors: 8 },
      ],
    });
    expect(spec).not.toHaveProperty('app');
    expect(fromSpec(spec)).toMatchObject({ kind: 'evolving', profiled: true, steps: form.steps });
    expect(validate(form)).toEqual({});
    expect(validateSteps(form)).toEqual({});
    expect(
      validateSteps({
        ...form,
        steps: [
          { duration_s: 60, processors: 2 },
          { duration_s: null, processors: 0 },
        ],
      }),
    ).toEqual({ '1.duration_s': 'must be a number', '1.processors': 'must be at least 1' });
    expect(validate({ ...form, steps: [] })).toEqual({ profile: 'must hold at least one step' });
  });

  it('edits steps, shows each error at its step, and submits the profile', async () => {
    const { wrapper, stores, client } = mountSubmit();
    await wrapper.find('[data-testid="kind-evolving"] input').setValue(true);
    await wrapper.find('[data-testid="sizes-profile"] input').setValue(true);
    await flushPromises();
    expect(wrapper.find('[data-testid="field-min"]').exists()).toBe(false);
    expect(wrapper.find('[data-testid="field-app"]').exists()).toBe(false);
    expect(wrapper.findAll('[data-testid^="step-"][data-testid$="-processors"]')).toHaveLength(2);
    await wrapper.find('[data-testid="step-add"]').trigger('click');
    await flushPromises();
    expect(stores.submit.form.steps).toHaveLength(3);
    await wrapper.find('[data-testid="step-2-processors"] input').setValue('0');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-step-2-processors"]').text()).toBe('processors: must be at least 1');
    expect(wrapper.find('[data-testid="submit-button"]').attributes('disabled')).toBeDefined();
    await wrapper.find('[data-testid="step-2-remove"]').trigger('click');
    await flushPromises();
    expect(wrapper.find('[data-testid="error-step-2-processors"]').exists()).toBe(false);
    expect(stores.submit.valid).toBe(true);

    // The host refuses a step too large for every cluster: its error lands at that step.
    client.answers['jobs.submit'] = {
      ok: false,
      errors: [{ path: 'profile.steps[1].processors', message: 'is larger than every cluster (16 > 8)' }],
    };
    await stores.submit.submit();
    await flushPromises();
    expect(
      client.calls.filter((c) => c.method === 'jobs.submit').map((c) => (c.payload as { profile: unknown }).profile),
    ).toEqual([
      {
        steps: [
          { duration_s: 600, processors: 4 },
          { duration_s: 300, processors: 16 },
        ],
      },
    ]);
    expect(wrapper.find('[data-testid="error-step-1-processors"]').text()).toBe(
      'processors: is larger than every cluster (16 > 8)',
    );
  });

  it('shows the step sizes of a profiled job in the Queue, the first four', () => {
    expect(stepSizes([2, 16, 4])).toBe('2→16→4');
    expect(stepSizes([1, 2, 3, 4, 5])).toBe('1→2→3→4→…');
  });

  it('describes the scheduled EP, each step, a failed step grow and a broken mutual wait in the job events', () => {
    expect(
      describeEvent({
        type: 'fpe.scheduled',
        t: 0,
        jobId: 'e',
        cluster: 'a',
        variant: '2X+c',
        start: 60,
        steps: [
          { durationS: 100, processors: 2 },
          { durationS: 149, processors: 4 },
        ],
      }),
    ).toBe('scheduled by 2X+c on a from 0:01:00: steps 2×0:01:40, 4×0:02:29');
    expect(
      describeEvent({
        type: 'fpe.step',
        t: 250,
        jobId: 'e',
        cluster: 'a',
        step: 3,
        processors: 8,
        expandedS: 49,
        delayedS: 0,
      }),
    ).toBe('step 3: 8 processors on a, after step 2 was expanded by 0:00:49 (idle)');
    const failed = {
      type: 'fpe.growFailed',
      t: 400,
      jobId: 'e',
      cluster: 'a',
      step: 2,
      missing: 2,
      reason: 'not all running 300 s after they were asked for',
      attempt: 1,
      attempts: 3,
    } as const;
    expect(describeEvent({ ...failed, retryAt: 460 })).toBe(
      "step 2's grow failed, 2 processors short (1 of 3): not all running 300 s after they were asked for; asked again from 0:07:40",
    );
    expect(describeEvent({ ...failed, missing: 1, attempt: 3 })).toBe(
      "step 2's grow failed, 1 processor short (3 of 3): not all running 300 s after they were asked for",
    );
    const wait = {
      type: 'fpe.mutualWait' as const,
      t: 40,
      jobId: 'b',
      cluster: 'c0',
      jobs: ['a', 'b'],
      step: 3,
      free: 4,
      action: 'stepTaken' as const,
    };
    expect(describeEvent(wait)).toBe(
      "stalled with a on c0, each waiting for the other's processors: took step 3 from the 4 free processors it had yielded to a",
    );
    expect(describeEvent({ ...wait, action: 'ended' })).toBe(
      "stalled with a on c0, each waiting for the other's processors: ended (evolution deadlock) so a can go on",
    );
  });
});
