// Live clusters in Settings: the configured clusters (clusters.list), a form to add one (clusters.save, which refuses
// a name taken) or edit one (clusters.update, renaming it only when asked to) with the host's field errors on their
// fields, "Test connection" (clusters.test) and accepting the host key it shows
// (clusters.acceptHostKey), passwords and passphrases (clusters.setSecret: the value is sent once and then
// forgotten here), and starting a live run (run.startLive).
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { InteractivePartitionSpec } from '../../../core/model/schemas.js';
import type { ApiClient, FieldError, MethodInput, MethodOutput } from '../api/types.js';

export type StoredCluster = MethodOutput<'clusters.list'>['clusters'][number];
export type ClusterConfig = StoredCluster['config'];
/** What "test connection" found: the host's one type (runners/live/config.ts), as the API serves it. */
export type ConnectionTest = MethodOutput<'clusters.test'>;

/** A batch system with its options' fields, as the host serves them with clusters.list (from each adapter's schema). */
export type BatchSystemInfo = MethodOutput<'clusters.list'>['systems'][number];
export type BatchOptionField = BatchSystemInfo['options'][number];
export type SystemName = ClusterConfig['system'];

/** The options the form shows for `system` (none until the host has said which systems there are). */
export const batchFieldsOf = (systems: readonly BatchSystemInfo[], system: SystemName): readonly BatchOptionField[] =>
  systems.find((s) => s.name === system)?.options ?? [];

export const CLUSTER_FIELDS = [
  'name',
  'via',
  'host',
  'port',
  'user',
  'identityFile',
  'proxyJump',
  'system',
  'slots',
  'workRoot',
  'env',
  'threshold',
  'pollIntervalS',
  'interactiveNodes',
  'cmsMsPerUnit',
  'cpsMsPerUnit',
  'interactivePlacement',
  'interactiveSharing',
  'form',
] as const;
/** The interactive partition's fields as the form names them (the config's `interactive.*`). */
const INTERACTIVE_FIELD: Readonly<Record<string, ClusterField>> = {
  nodes: 'interactiveNodes',
  cmsMsPerUnit: 'cmsMsPerUnit',
  cpsMsPerUnit: 'cpsMsPerUnit',
  placement: 'interactivePlacement',
  sharing: 'interactiveSharing',
};
/** A field of the form: one of CLUSTER_FIELDS, or a batch option by its name (its system's fields come from the host). */
export type ClusterField = (typeof CLUSTER_FIELDS)[number] | (string & {});
export type ClusterErrors = Partial<Record<ClusterField, string>>;

export interface ClusterForm {
  name: string;
  via: 'ssh' | 'local';
  host: string;
  port: number | null;
  user: string;
  identityFile: string;
  proxyJump: string;
  system: SystemName;
  slots: number | null;
  workRoot: string;
  /** One `NAME=value` per line. */
  env: string;
  threshold: number | null;
  pollIntervalS: number | null;
  /** The batch system's options by name, as typed (a list one item per line; empty: left out). */
  batch: Record<string, string>;
  /** Worker nodes for interactive jobs (empty: none), with RT-DLT's per-unit transmission and processing costs (ms). */
  interactiveNodes: number | null;
  cmsMsPerUnit: number | null;
  cpsMsPerUnit: number | null;
  /** How the head node places and shares interactive jobs on its workers (null: the schema's default). */
  interactivePlacement: InteractivePartitionSpec['placement'] | null;
  interactiveSharing: InteractivePartitionSpec['sharing'] | null;
}

export const emptyClusterForm = (): ClusterForm => ({
  name: '',
  via: 'ssh',
  host: '',
  port: null,
  user: '',
  identityFile: '',
  proxyJump: '',
  system: 'slurm',
  slots: null,
  workRoot: '.concertina',
  env: '',
  threshold: 1,
  pollIntervalS: 10,
  batch: {},
  interactiveNodes: null,
  cmsMsPerUnit: null,
  cpsMsPerUnit: null,
  interactivePlacement: null,
  interactiveSharing: null,
});

export function formOf(config: ClusterConfig): ClusterForm {
  const ssh = config.login.via === 'ssh' ? config.login : undefined;
  return {
    name: config.name,
    via: config.login.via,
    host: ssh?.host ?? '',
    port: ssh?.port ?? null,
    user: ssh?.user ?? '',
    identityFile: ssh?.identityFile ?? '',
    proxyJump: ssh?.proxyJump ?? '',
    system: config.system,
    slots: config.slots ?? null,
    workRoot: config.workRoot,
    env: Object.entries(config.env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    threshold: config.threshold,
    pollIntervalS: config.pollIntervalS,
    batch: Object.fromEntries(
      Object.entries(config.batch).flatMap(([name, value]) =>
        value === undefined ? [] : [[name, Array.isArray(value) ? value.join('\n') : String(value)]],
      ),
    ),
    interactiveNodes: config.interactive?.nodes ?? null,
    cmsMsPerUnit: config.interactive?.cmsMsPerUnit ?? null,
    cpsMsPerUnit: config.interactive?.cpsMsPerUnit ?? null,
    interactivePlacement: config.interactive?.placement ?? null,
    interactiveSharing: config.interactive?.sharing ?? null,
  };
}

/** The batch options the form gives, for its system's fields only, each as its kind says (a list split into lines). */
function batchOf(form: ClusterForm, systems: readonly BatchSystemInfo[]): Record<string, string | number | string[]> {
  const batch: Record<string, string | number | string[]> = {};
  for (const field of batchFieldsOf(systems, form.system)) {
    const typed = (form.batch[field.name] ?? '').trim();
    if (field.kind === 'list') {
      const items = typed
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      if (items.length) batch[field.name] = items;
    } else if (typed !== '')
      batch[field.name] = field.kind === 'number' && Number.isFinite(Number(typed)) ? Number(typed) : typed;
  }
  return batch;
}

/**
 * The configuration the form describes (the host checks it), or the env field's error. `systems`: the batch
 * systems' fields as the host serves them (clusters.list).
 */
export function configOf(
  form: ClusterForm,
  systems: readonly BatchSystemInfo[],
): { config: MethodInput<'clusters.save'> } | { error: ClusterErrors } {
  const env: Record<string, string> = {};
  const lines = form.env.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const eq = line.indexOf('=');
    if (eq <= 0) return { error: { env: `line ${i + 1}: expected NAME=value` } };
    env[line.slice(0, eq).trim()] = line.slice(eq + 1);
  }
  const text = (v: string) => (v.trim() === '' ? undefined : v.trim());
  // Options of other systems than the one chosen are left out: switching the system does not leave stale ones behind.
  // The host checks each value against its adapter's schema (an enum's value among them).
  const batch = batchOf(form, systems) as MethodInput<'clusters.save'>['batch'];
  const login =
    form.via === 'local'
      ? { via: 'local' as const }
      : {
          via: 'ssh' as const,
          host: form.host.trim(),
          ...(form.port !== null ? { port: form.port } : {}),
          ...(text(form.user) ? { user: text(form.user)! } : {}),
          ...(text(form.identityFile) ? { identityFile: text(form.identityFile)! } : {}),
          ...(text(form.proxyJump) ? { proxyJump: text(form.proxyJump)! } : {}),
        };
  return {
    config: {
      name: form.name.trim(),
      login,
      system: form.system,
      ...(form.slots !== null ? { slots: form.slots } : {}),
      ...(text(form.workRoot) ? { workRoot: text(form.workRoot)! } : {}),
      env,
      ...(form.threshold !== null ? { threshold: form.threshold } : {}),
      ...(form.pollIntervalS !== null ? { pollIntervalS: form.pollIntervalS } : {}),
      batch,
      // Decision: the partition is configured by its node count; its costs go with it (Cms empty: 0), and its
      // placement and sharing as chosen (left empty: the schema's defaults, best fit and interleaved).
      ...(form.interactiveNodes !== null
        ? {
            interactive: {
              nodes: form.interactiveNodes,
              cmsMsPerUnit: form.cmsMsPerUnit ?? 0,
              ...(form.cpsMsPerUnit !== null ? { cpsMsPerUnit: form.cpsMsPerUnit } : {}),
              ...(form.interactivePlacement !== null ? { placement: form.interactivePlacement } : {}),
              ...(form.interactiveSharing !== null ? { sharing: form.interactiveSharing } : {}),
            } as NonNullable<ClusterConfig['interactive']>,
          }
        : {}),
    },
  };
}

/** The field a host error names: `login.host` → host, `batch.queue` → queue, `env.X` → env; anything else → form. */
export function clusterFieldOf(path: string): ClusterField {
  const parts = path.split(/[.[\]"']+/).filter(Boolean);
  if (parts[0] === 'interactive') return INTERACTIVE_FIELD[parts[1] ?? 'nodes'] ?? 'interactiveNodes';
  // A batch option's error goes to its field, whichever the adapter's schema names.
  if (parts[0] === 'batch') return parts[1] ?? 'form';
  const key = parts[0] === 'login' ? (parts[1] ?? 'host') : (parts[0] ?? '');
  return (CLUSTER_FIELDS as readonly string[]).includes(key) ? (key as ClusterField) : 'form';
}

/** clusters.update's errors as clusters.save's: `config.login.host` → `login.host`; its `name` (the cluster edited) on the form. */
export function updateErrorsOf(errors: readonly FieldError[]): FieldError[] {
  return errors.map((e) =>
    e.path.startsWith('config.')
      ? { ...e, path: e.path.slice('config.'.length) }
      : e.path === 'name'
        ? { path: '', message: e.message }
        : e,
  );
}

export function clusterErrorsOf(errors: readonly FieldError[]): ClusterErrors {
  const out: ClusterErrors = {};
  for (const e of errors) {
    const field = clusterFieldOf(e.path);
    out[field] ??= field === 'form' && e.path ? `${e.path}: ${e.message}` : e.message;
  }
  return out;
}

/** Where a failed connection test belongs in the form (an auth failure is the user's, a connect failure the host's). */
export function testFieldOf(result: ConnectionTest): ClusterField {
  if (result.ok) return 'form';
  if (result.kind === 'connect-failed' || result.kind === 'host-key-changed') return 'host';
  if (result.kind === 'auth-failed') return 'user';
  if (result.kind === 'no-batch-system') return 'system';
  return 'form';
}

/** What the views need to follow a new run. */
export interface LiveRunTargets {
  grid: { clear(): void; refresh(): Promise<void> };
  jobs: { refresh(): Promise<void> };
  activity: { clear(): void };
}

export function defineClustersStore(client: ApiClient) {
  return defineStore('clusters', () => {
    const clusters = ref<StoredCluster[]>([]);
    const secretsPersist = ref(false);
    /** The batch systems and their options' fields (served with clusters.list). */
    const systems = ref<BatchSystemInfo[]>([]);
    const form = ref<ClusterForm>(emptyClusterForm());
    /** The name of the cluster being edited (undefined: a new one). */
    const editing = ref<string | undefined>();
    const errors = ref<ClusterErrors>({});
    const busy = ref(false);
    const testing = ref(false);
    /** The cluster whose assets are being staged. */
    const staging = ref<string | undefined>(undefined);
    const testResult = ref<ConnectionTest | undefined>();
    const message = ref('');
    const liveStarted = ref('');

    /** Shows the host's errors on their fields; false, for the caller to return. */
    function fail(errs: readonly FieldError[]): false {
      errors.value = clusterErrorsOf(errs);
      return false;
    }

    async function load(): Promise<boolean> {
      const r = await client.call('clusters.list', {});
      if (!r.ok) return fail(r.errors);
      clusters.value = r.value.clusters;
      secretsPersist.value = r.value.secretsPersist;
      systems.value = r.value.systems;
      return true;
    }

    function startNew() {
      form.value = emptyClusterForm();
      editing.value = undefined;
      errors.value = {};
      testResult.value = undefined;
      message.value = '';
    }

    function edit(name: string) {
      const found = clusters.value.find((c) => c.config.name === name);
      if (!found) return;
      form.value = formOf(found.config);
      editing.value = name;
      errors.value = {};
      testResult.value = undefined;
      message.value = '';
    }

    function touch(field: ClusterField) {
      if (errors.value[field] === undefined && errors.value.form === undefined) return;
      const { [field]: _cleared, form: _form, ...rest } = errors.value;
      errors.value = rest;
    }

    /** The form's configuration, or false with the env error set. */
    function current(): MethodInput<'clusters.save'> | undefined {
      const built = configOf(form.value, systems.value);
      if ('error' in built) {
        errors.value = built.error;
        return undefined;
      }
      return built.config;
    }

    /** Whether saving the form renames the cluster edited (the view asks first). */
    /** The fields of the chosen system's options, in its adapter's order. */
    const batchFields = computed(() => batchFieldsOf(systems.value, form.value.system));

    const renaming = computed(() => editing.value !== undefined && form.value.name.trim() !== editing.value);

    /** The form as the cluster edited (its name changed only by a rename the user confirmed), or as a new cluster. */
    async function save(): Promise<boolean> {
      return editing.value === undefined ? add() : update(editing.value);
    }

    /** Adds the form as a new cluster, even while one is edited (the host refuses a name taken: nothing is replaced). */
    async function add(): Promise<boolean> {
      const config = current();
      if (!config) return false;
      busy.value = true;
      try {
        const r = await client.call('clusters.save', config);
        if (!r.ok) return fail(r.errors);
        return saved(r.value.name, `Saved ${r.value.name}.`);
      } finally {
        busy.value = false;
      }
    }

    async function update(name: string): Promise<boolean> {
      const config = current();
      if (!config) return false;
      busy.value = true;
      try {
        const r = await client.call('clusters.update', { name, config });
        if (!r.ok) return fail(updateErrorsOf(r.errors));
        return saved(
          r.value.name,
          r.value.renamedFrom ? `Renamed ${r.value.renamedFrom} to ${r.value.name}.` : `Saved ${r.value.name}.`,
        );
      } finally {
        busy.value = false;
      }
    }

    async function saved(name: string, text: string): Promise<true> {
      editing.value = name;
      errors.value = {};
      message.value = text;
      await load();
      return true;
    }

    async function remove(name: string): Promise<boolean> {
      const r = await client.call('clusters.remove', { name });
      if (!r.ok) return fail(r.errors);
      if (editing.value === name) startNew();
      await load();
      return true;
    }

    async function test(): Promise<ConnectionTest | undefined> {
      const config = current();
      if (!config) return undefined;
      testing.value = true;
      testResult.value = undefined;
      try {
        const r = await client.call('clusters.test', config);
        if (!r.ok) return void fail(r.errors);
        errors.value = {};
        testResult.value = r.value;
        if (!r.value.ok && r.value.kind !== 'host-key-unknown')
          errors.value = { [testFieldOf(r.value)]: r.value.message };
        return r.value;
      } finally {
        testing.value = false;
      }
    }

    /** Trusts the key the last test showed, then tests again. */
    async function acceptKey(): Promise<boolean> {
      const shown = testResult.value;
      if (!shown || shown.ok || shown.kind !== 'host-key-unknown' || !shown.host || !shown.fingerprint) return false;
      // With the cluster's configuration, the host fetches the key along the same route (jump hosts included).
      const config = current();
      if (!config) return false;
      const r = await client.call('clusters.acceptHostKey', {
        host: shown.host,
        ...(shown.port !== undefined ? { port: shown.port } : {}),
        fingerprint: shown.fingerprint,
        cluster: config,
      });
      if (!r.ok) return fail(r.errors);
      message.value = `Trusted ${r.value.keyType} ${r.value.fingerprint}.`;
      await test();
      return true;
    }

    /** Sends a password or passphrase for the saved cluster being edited; the value is not kept here. */
    async function setSecret(kind: 'password' | 'passphrase', value: string): Promise<boolean> {
      const cluster = editing.value ?? form.value.name.trim();
      const r = await client.call('clusters.setSecret', { cluster, kind, value });
      if (!r.ok) {
        errors.value = {
          form: r.errors.map((e) => (e.path === 'cluster' ? e.message : `${e.path}: ${e.message}`)).join('; '),
        };
        return false;
      }
      message.value = r.value.persistent
        ? `The ${kind} is kept encrypted by the system keychain.`
        : `The ${kind} is held for this session only.`;
      await load();
      return true;
    }

    /** Copies the SDK and the demo applications again to a saved cluster (clusters.stageAssets). */
    async function stageAssets(name: string): Promise<boolean> {
      staging.value = name;
      try {
        const r = await client.call('clusters.stageAssets', { name });
        if (!r.ok) {
          errors.value = { form: r.errors.map((e) => e.message).join('; ') };
          return false;
        }
        const { copied, unchanged, dir } = r.value;
        message.value = `Assets on ${name} (${dir}): ${copied.length} file(s) copied, ${unchanged.length} already up to date.`;
        return true;
      } finally {
        staging.value = undefined;
      }
    }

    async function startLive(targets: LiveRunTargets): Promise<boolean> {
      busy.value = true;
      liveStarted.value = '';
      try {
        const r = await client.call('run.startLive', {});
        if (!r.ok) {
          errors.value = { form: r.errors.map((e) => e.message).join('; ') };
          return false;
        }
        liveStarted.value = `Live run on ${r.value.clusters.join(', ')}.${r.value.backup ? ` The stored run was kept as a copy: ${r.value.backup}` : ''}`;
        targets.grid.clear();
        targets.activity.clear();
        await Promise.all([targets.grid.refresh(), targets.jobs.refresh()]);
        return true;
      } finally {
        busy.value = false;
      }
    }

    return {
      clusters,
      secretsPersist,
      systems,
      batchFields,
      form,
      editing,
      renaming,
      errors,
      busy,
      testing,
      staging,
      testResult,
      message,
      liveStarted,
      load,
      startNew,
      edit,
      touch,
      save,
      add,
      remove,
      test,
      acceptKey,
      setSecret,
      stageAssets,
      startLive,
    };
  });
}

export type ClustersStore = ReturnType<ReturnType<typeof defineClustersStore>>;
