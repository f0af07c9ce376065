// Saved Submit forms by name (the `templates.*` methods): kept by the store, or in memory by a host without one.
import type { JobSpec } from '../../../core/model/schemas.js';
import type { Store, StoredTemplate } from '../../store/store.js';
import { refused, type ServiceHandlers } from './run.js';

export class TemplatesService {
  /** Templates of a host without a store. */
  private readonly memory = new Map<string, StoredTemplate>();

  constructor(private readonly store: Store | undefined) {}

  list(): StoredTemplate[] {
    return this.store ? this.store.templates() : [...this.memory.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  save(name: string, spec: JobSpec): void {
    if (this.store) this.store.saveTemplate({ name, spec });
    else this.memory.set(name, { name, spec });
  }

  /** Whether there was one by that name. */
  delete(name: string): boolean {
    return this.store ? this.store.deleteTemplate(name) : this.memory.delete(name);
  }

  handlers(): ServiceHandlers<'templates.list' | 'templates.save' | 'templates.delete'> {
    return {
      'templates.list': () => ({
        ok: true,
        value: { templates: this.list() as Array<{ name: string; spec: JobSpec }> },
      }),
      'templates.save': ({ name, spec }) => {
        this.save(name, spec);
        return { ok: true, value: { name } };
      },
      'templates.delete': ({ name }) =>
        this.delete(name) ? { ok: true, value: { name } } : refused('name', `names no template ("${name}")`),
    };
  }
}
