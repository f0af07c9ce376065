// @vitest-environment happy-dom
// Saved templates: the store over the API (list, save, delete, refusals at their field), the form filled from a
// template and back, and the Submit view's template bar.
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import SubmitView from '../../renderer/src/views/SubmitView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { defineTemplatesStore } from '../../renderer/src/stores/templates.js';
import {
  APP_MODELS,
  defaultForm,
  fromSpec,
  JOB_KINDS,
  PLACEMENT_POLICIES,
  toSpec,
  type SubmitForm,
} from '../../renderer/src/stores/submit.js';
import { fakeClient } from './fake-client.js';
import { hms } from '../../renderer/src/format.js';

const ft = {
  name: 'ft-8',
  kind: 'malleable' as const,
  placement: 'cf' as const,
  submitTime: 0,
  app: { model: 'ft' as const },
  walltime: 900,
  components: [{ min: 2, max: 8, initial: 4, program: 'ft', args: [], inputFiles: [] }],
};
const rigid = {
  kind: 'rigid' as const,
  placement: 'wf' as const,
  submitTime: 0,
  components: [{ processors: 6, program: 'x', args: [], inputFiles: [] }],
};

describe('templates store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it("lists the host's templates and saves the form under the name typed, then lists again", async () => {
    const client = fakeClient({
      'templates.list': { ok: true, value: { templates: [{ name: 'a', spec: rigid }] } },
      'templates.save': { ok: true, value: { name: 'ft small' } },
    });
    const store = defineTemplatesStore(client)();
    expect(await store.load()).toBe(true);
    expect(store.templates.map((t) => t.name)).toEqual(['a']);
    store.name = 'ft small';
    client.answers['templates.list'] = {
      ok: true,
      value: {
        templates: [
          { name: 'a', spec: rigid },
          { name: 'ft small', spec: ft },
        ],
      },
    };
    expect(await store.save(ft)).toBe(true);
    expect(store.templates.map((t) => t.name)).toEqual(['a', 'ft small']);
    expect(client.calls.filter((c) => c.method === 'templates.save')).toEqual([
      { method: 'templates.save', payload: { name: 'ft small', spec: ft } },
    ]);
    expect(client.calls.at(-1)!.method).toBe('templates.list');
    expect(store.chosen).toBe('ft small');
    expect(store.name).toBe('');
  });

  it("refuses a blank name without asking the host, and shows the host's refusals at their field", async () => {
    const client = fakeClient({
      'templates.save': {
        ok: false,
        errors: [
          { path: 'name', message: 'must be at most 64 characters' },
          { path: 'spec.components[0].min', message: 'must be at least 1' },
        ],
      },
    });
    const store = defineTemplatesStore(client)();
    store.name = '   ';
    expect(await store.save(ft)).toBe(false);
    expect(store.nameError).toBe('must not be empty');
    expect(client.calls).toEqual([]);
    store.name = 'x'.repeat(65);
    expect(await store.save(ft)).toBe(false);
    expect(store.nameError).toBe('must be at most 64 characters');
    expect(store.error).toBe('spec.components[0].min: must be at least 1');
  });

  it('deletes a template and forgets the choice when it is gone', async () => {
    const client = fakeClient({ 'templates.list': { ok: true, value: { templates: [{ name: 'a', spec: rigid }] } } });
    const store = defineTemplatesStore(client)();
    await store.load();
    store.chosen = 'a';
    client.answers['templates.delete'] = { ok: true, value: { name: 'a' } };
    client.answers['templates.list'] = { ok: true, value: { templates: [] } };
    expect(await store.remove('a')).toBe(true);
    expect(store.chosen).toBeNull();
    client.answers['templates.delete'] = { ok: false, errors: [{ path: 'name', message: 'names no template ("a")' }] };
    expect(await store.remove('a')).toBe(false);
    expect(store.error).toBe('name: names no template ("a")');
  });
});

describe('form from a template', () => {
  it('gives back the spec the form was saved as, for any form the schema accepts', () => {
    const formArb = fc.record({
      name: fc.constantFrom('', 'job a', 'b'),
      kind: fc.constantFrom(...JOB_KINDS),
      processors: fc.integer({ min: 1, max: 64 }),
      min: fc.integer({ min: 1, max: 16 }),
      max: fc.integer({ min: 16, max: 64 }),
      initial: fc.option(fc.integer({ min: 16, max: 16 }), { nil: null }),
      app: fc.constantFrom(...APP_MODELS),
      phases: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
      phaseS: fc.option(fc.integer({ min: 1, max: 3600 }), { nil: null }),
      announceS: fc.option(fc.integer({ min: 0, max: 600 }), { nil: null }),
      arrivalMs: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: null }),
      periodMs: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
      dataUnits: fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
      deadlineMs: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
      load: fc.option(fc.constantFrom(0, 0.5, 1.5), { nil: null }),
      overrunEvery: fc.option(fc.integer({ min: 0, max: 10 }), { nil: null }),
      overrunFactor: fc.option(fc.constantFrom(1.2, 2), { nil: null }),
      profiled: fc.boolean(),
      steps: fc.array(
        fc.record({ duration_s: fc.integer({ min: 1, max: 3600 }), processors: fc.integer({ min: 1, max: 64 }) }),
        { minLength: 1, maxLength: 4 },
      ),
      placement: fc.constantFrom(...PLACEMENT_POLICIES),
      program: fc.constantFrom('ft', 'gadget2', 'a.out'),
      // Words as typed: any spacing between them, before and after.
      args: fc
        .array(fc.constantFrom('400000', '12', '--fast', "it's", '{assets}/x'), { maxLength: 4 })
        .chain((words) => fc.constantFrom(words.join(' '), ` ${words.join('   ')} `)),
      cluster: fc.constantFrom(null, 'fs0', 'slurm'),
      // As typed: empty, seconds, or h:mm:ss.
      walltime: fc.oneof(
        fc.constant(''),
        fc.integer({ min: 1, max: 86400 }).map(String),
        fc.integer({ min: 1, max: 86400 }).map(hms),
      ),
    });
    fc.assert(
      fc.property(formArb, (form: SubmitForm) => {
        const spec = toSpec(form);
        expect(toSpec(fromSpec(spec))).toEqual(spec);
      }),
    );
  });

  it('keeps the arguments and the fixed cluster', () => {
    const spec = toSpec({
      ...defaultForm(),
      program: '{assets}/apps/ft-demo.mjs',
      args: ' 4000  12 ',
      cluster: 'slurm',
    });
    expect(spec.components).toEqual([
      { program: '{assets}/apps/ft-demo.mjs', args: ['4000', '12'], cluster: 'slurm', min: 2, max: 32 },
    ]);
    expect(fromSpec(spec)).toMatchObject({ program: '{assets}/apps/ft-demo.mjs', args: '4000 12', cluster: 'slurm' });
  });

  it('keeps the defaults for what a spec does not say, and FT for a model the form does not offer', () => {
    const form = fromSpec({
      kind: 'rigid',
      app: { model: 'fixed', runtime: 60 },
      components: [{ processors: 3, program: 'p' }],
    });
    expect(form).toEqual({ ...defaultForm(), kind: 'rigid', processors: 3, program: 'p', app: 'ft' });
  });
});

describe('Submit view templates', () => {
  it('fills the form from the chosen template and saves the form under a name', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const client = fakeClient({
      'templates.list': { ok: true, value: { templates: [{ name: 'ft-8', spec: ft }] } },
      'templates.save': { ok: true, value: { name: 'mine' } },
    });
    const stores = createStores(client);
    const wrapper = mount(SubmitView, {
      global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
      attachTo: 'body',
    });
    await flushPromises();
    expect(stores.templates.templates).toHaveLength(1);
    stores.templates.chosen = 'ft-8';
    await flushPromises();
    await wrapper.find('[data-testid="template-apply"]').trigger('click');
    await flushPromises();
    expect(stores.submit.form).toMatchObject({
      name: 'ft-8',
      kind: 'malleable',
      min: 2,
      max: 8,
      initial: 4,
      placement: 'cf',
      walltime: '0:15:00',
    });
    expect((wrapper.find('[data-testid="field-max"] input').element as unknown as { value: string }).value).toBe('8');

    await wrapper.find('[data-testid="template-name"] input').setValue('mine');
    await wrapper.find('[data-testid="template-save"]').trigger('click');
    await flushPromises();
    const saved = client.calls.find((c) => c.method === 'templates.save');
    expect(saved?.payload).toEqual({ name: 'mine', spec: toSpec(stores.submit.form) });
    wrapper.unmount();
  });
});
