// Saved submit-form templates, kept by the host (templates.list / save / delete): the list, the name to save under,
// and the host's refusals (a bad name at the name field, anything else about the spec).
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ApiClient, FieldError, MethodOutput } from '../api/types.js';
import type { JobSpecInput } from '../../../core/model/schemas.js';

export type JobTemplate = MethodOutput<'templates.list'>['templates'][number];

function describe(errors: readonly FieldError[]): string {
  return errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ');
}

export function defineTemplatesStore(client: ApiClient) {
  return defineStore('templates', () => {
    const templates = shallowRef<JobTemplate[]>([]);
    /** The name the current form is saved under. */
    const name = ref('');
    /** The template chosen in the list (to apply or delete). */
    const chosen = ref<string | null>(null);
    const nameError = ref('');
    const error = ref('');
    const busy = ref(false);

    async function load(): Promise<boolean> {
      const result = await client.call('templates.list', {});
      if (!result.ok) {
        error.value = describe(result.errors);
        return false;
      }
      templates.value = result.value.templates;
      if (chosen.value !== null && !templates.value.some((t) => t.name === chosen.value)) chosen.value = null;
      return true;
    }

    /** Saves `spec` under the name typed; replaces a template of that name. */
    async function save(spec: JobSpecInput): Promise<boolean> {
      nameError.value = '';
      error.value = '';
      if (!name.value.trim()) {
        nameError.value = 'must not be empty';
        return false;
      }
      busy.value = true;
      try {
        const result = await client.call('templates.save', { name: name.value, spec });
        if (!result.ok) {
          const onName = result.errors.filter((e) => e.path === 'name');
          nameError.value = onName.map((e) => e.message).join('; ');
          error.value = describe(result.errors.filter((e) => e.path !== 'name'));
          return false;
        }
        chosen.value = result.value.name;
        name.value = '';
        return await load();
      } finally {
        busy.value = false;
      }
    }

    async function remove(which: string): Promise<boolean> {
      error.value = '';
      busy.value = true;
      try {
        const result = await client.call('templates.delete', { name: which });
        if (!result.ok) error.value = describe(result.errors);
        await load();
        return result.ok;
      } finally {
        busy.value = false;
      }
    }

    function find(which: string | null): JobTemplate | undefined {
      return templates.value.find((t) => t.name === which);
    }

    return { templates, name, chosen, nameError, error, busy, load, save, remove, find };
  });
}
export type TemplatesStore = ReturnType<ReturnType<typeof defineTemplatesStore>>;
