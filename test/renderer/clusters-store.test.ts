// @vitest-environment happy-dom
// Settings → Clusters over a fake client: the form becomes the configuration the host checks (env lines parsed,
// empty fields left out), the host's errors land on their fields (login.host → host), a connection test's failure
// on the field it concerns, an unknown host key is accepted with exactly what the test showed and tested again,
// secrets are sent once and not kept, and a live run makes the views follow it.
import { beforeEach, describe, expect, it } from 'vitest';
import { createPinia, setActivePinia } from 'pinia';
import {
  clusterFieldOf,
  configOf,
  defineClustersStore,
  emptyClusterForm,
  formOf,
} from '../../renderer/src/stores/clusters.js';
import { BATCH_SYSTEM_INFOS as systems, liveClusterSchema } from '../../runners/live/config.js';
import { fakeClient } from './fake-client.js';

const lab = {
  name: 'lab1',
  login: { via: 'ssh' as const, host: 'login.example.org', port: 2222, user: 'alice', keepaliveS: 20 },
  system: 'slurm' as const,
  workRoot: '.concertina',
  env: { SLURM_CONF: '/etc/slurm/a=b.conf' },
  threshold: 0.5,
  pollIntervalS: 10,
  batch: { partition: 'short', extraArgs: ['--qos=low', '--comment=a b'] },
};
const FINGERPRINT = 'SHA256:' + 'A'.repeat(43);

describe('clusters store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('turns the form into a configuration and back', () => {
    const form = {
      ...emptyClusterForm(),
      name: ' lab1 ',
      host: 'login.example.org',
      port: 2222,
      user: 'alice',
      env: 'SLURM_CONF=/etc/slurm/a=b.conf\n\n',
      threshold: 0.5,
    };
    const built = configOf(form, systems);
    expect(built).toEqual({
      config: {
        name: 'lab1',
        login: { via: 'ssh', host: 'login.example.org', port: 2222, user: 'alice' },
        system: 'slurm',
        workRoot: '.concertina',
        env: { SLURM_CONF: '/etc/slurm/a=b.conf' },
        threshold: 0.5,
        pollIntervalS: 10,
        batch: {},
      },
    });
    expect(configOf({ ...form, env: 'OK=1\nnot a pair' }, systems)).toEqual({
      error: { env: 'line 2: expected NAME=value' },
    });
    expect(configOf({ ...form, via: 'local', slots: 4 }, systems)).toMatchObject({
      config: { login: { via: 'local' }, slots: 4 },
    });
    expect(configOf(formOf(lab), systems)).toEqual({
      config: { ...lab, login: { via: 'ssh', host: 'login.example.org', port: 2222, user: 'alice' } },
    });
    expect(
      [
        'login.host',
        'login.port',
        'env.BAD',
        'name',
        'slots',
        'login',
        'batch.queue',
        'batch.extraArgs[1]',
        'whatever',
      ].map(clusterFieldOf),
    ).toEqual(['host', 'port', 'env', 'name', 'slots', 'host', 'queue', 'extraArgs', 'form']);
    // Batch options: one submit option per line; those of another system than the one chosen are left out.
    const options = {
      ...form,
      batch: {
        partition: ' debug ',
        account: 'proj',
        queue: 'all.q',
        parallelEnvironment: 'mpi',
        flavour: 'torque',
        extraArgs: '--qos=low\n\n --exclusive ',
      },
    };
    expect(configOf(options, systems)).toMatchObject({
      config: { batch: { partition: 'debug', account: 'proj', extraArgs: ['--qos=low', '--exclusive'] } },
    });
    expect(configOf({ ...options, system: 'sge' }, systems)).toMatchObject({
      config: { batch: { parallelEnvironment: 'mpi', queue: 'all.q', extraArgs: ['--qos=low', '--exclusive'] } },
    });
    expect(configOf({ ...options, system: 'pbs' }, systems)).toMatchObject({
      config: { batch: { flavour: 'torque', queue: 'all.q', extraArgs: ['--qos=low', '--exclusive'] } },
    });
    expect(configOf({ ...options, system: 'local', via: 'local' }, systems)).toMatchObject({ config: { batch: {} } });
  });

  it('takes the interactive partition: worker nodes and RT-DLT costs, its errors at their fields', () => {
    const form = {
      ...emptyClusterForm(),
      name: 'here',
      via: 'local' as const,
      system: 'local' as const,
      slots: 2,
      interactiveNodes: 8,
      cpsMsPerUnit: 10,
    };
    const built = configOf(form, systems);
    expect(built).toMatchObject({ config: { interactive: { nodes: 8, cmsMsPerUnit: 0, cpsMsPerUnit: 10 } } });
    expect(configOf(emptyClusterForm(), systems)).not.toHaveProperty('config.interactive');
    if (!('config' in built)) throw new Error('no config');
    const stored = liveClusterSchema.parse(built.config);
    expect(formOf(stored)).toMatchObject({ interactiveNodes: 8, cmsMsPerUnit: 0, cpsMsPerUnit: 10 });
    expect(
      ['interactive.nodes', 'interactive.cmsMsPerUnit', 'interactive.cpsMsPerUnit', 'interactive'].map(clusterFieldOf),
    ).toEqual(['interactiveNodes', 'cmsMsPerUnit', 'cpsMsPerUnit', 'interactiveNodes']);
    // Nodes without a processing cost: refused at Cps by the host's own schema.
    const missing = configOf({ ...form, cpsMsPerUnit: null }, systems);
    const parsed = liveClusterSchema.safeParse('config' in missing ? missing.config : undefined);
    expect(parsed.success ? [] : parsed.error.issues.map((i) => clusterFieldOf(i.path.join('.')))).toEqual([
      'cpsMsPerUnit',
    ]);
  });

  it("saves and shows the host's errors at their fields; nothing is sent for a malformed env", async () => {
    const client = fakeClient({
      'clusters.save': {
        ok: false,
        errors: [
          { path: 'login.host', message: 'is required' },
          { path: 'threshold', message: 'Too big' },
        ],
      },
    });
    const store = defineClustersStore(client)();
    store.form = { ...emptyClusterForm(), name: 'lab1' };
    expect(await store.save()).toBe(false);
    expect(store.errors).toEqual({ host: 'is required', threshold: 'Too big' });
    store.touch('host');
    expect(store.errors).toEqual({ threshold: 'Too big' });

    store.form.env = 'novalue';
    const calls = client.calls.length;
    expect(await store.save()).toBe(false);
    expect(client.calls.length).toBe(calls);
    expect(store.errors).toEqual({ env: 'line 1: expected NAME=value' });

    client.answers['clusters.save'] = { ok: true, value: { name: 'lab1' } };
    client.answers['clusters.list'] = {
      ok: true,
      value: { clusters: [{ config: lab, secrets: [] }], secretsPersist: false, systems },
    };
    store.form.env = '';
    expect(await store.save()).toBe(true);
    expect(store.clusters.map((c) => c.config.name)).toEqual(['lab1']);
    expect(store.editing).toBe('lab1');
  });

  it('edits the cluster edited (clusters.update), renames it only by its name changed, and adds a new one only when asked', async () => {
    const client = fakeClient({
      'clusters.list': {
        ok: true,
        value: { clusters: [{ config: lab, secrets: [] }], secretsPersist: false, systems },
      },
      'clusters.update': { ok: true, value: { name: 'lab1' } },
    });
    const store = defineClustersStore(client)();
    await store.load();
    store.edit('lab1');
    expect(store.renaming).toBe(false);
    store.form.threshold = 0.8;
    expect(await store.save()).toBe(true);
    const config = (configOf(store.form, systems) as { config: unknown }).config;
    expect(client.calls.filter((c) => c.method.startsWith('clusters.') && c.method !== 'clusters.list')).toEqual([
      { method: 'clusters.update', payload: { name: 'lab1', config } },
    ]);
    expect(store.message).toBe('Saved lab1.');

    // A new name is a rename of lab1 (the view asks first); the host's errors under config land on their fields.
    store.form.name = 'lab2';
    store.form.host = 'login2.example.org';
    expect(store.renaming).toBe(true);
    client.answers['clusters.update'] = {
      ok: false,
      errors: [
        { path: 'config.name', message: 'a cluster named "lab2" is configured already: choose another name' },
        { path: 'config.login.user', message: 'bad' },
      ],
    };
    expect(await store.save()).toBe(false);
    expect(store.errors).toEqual({
      name: 'a cluster named "lab2" is configured already: choose another name',
      user: 'bad',
    });
    client.answers['clusters.update'] = { ok: true, value: { name: 'lab2', renamedFrom: 'lab1' } };
    expect(await store.save()).toBe(true);
    expect(client.calls.at(-2)).toMatchObject({
      method: 'clusters.update',
      payload: { name: 'lab1', config: { name: 'lab2', login: { host: 'login2.example.org' } } },
    });
    expect(store.message).toBe('Renamed lab1 to lab2.');
    expect([store.editing, store.renaming]).toEqual(['lab2', false]);
    // Nothing is removed by the console: the host renames in one call.
    expect(client.calls.some((c) => c.method === 'clusters.remove')).toBe(false);

    // Add as a new cluster while editing: clusters.save (which refuses a name taken), and the new one is then edited.
    store.form.name = 'lab3';
    client.answers['clusters.save'] = { ok: true, value: { name: 'lab3' } };
    expect(await store.add()).toBe(true);
    expect(client.calls.at(-2)).toMatchObject({ method: 'clusters.save', payload: { name: 'lab3' } });
    expect(store.editing).toBe('lab3');
    client.answers['clusters.update'] = { ok: false, errors: [{ path: 'name', message: 'names no cluster ("lab3")' }] };
    expect(await store.save()).toBe(false);
    expect(store.errors).toEqual({ form: 'names no cluster ("lab3")' });
  });

  it("keeps an edited cluster's interactive placement and sharing (issue 16)", async () => {
    const interactive = {
      nodes: 8,
      cmsMsPerUnit: 1,
      cpsMsPerUnit: 10,
      placement: 'worst-fit' as const,
      sharing: 'exclusive' as const,
    };
    const client = fakeClient({
      'clusters.list': {
        ok: true,
        value: { clusters: [{ config: { ...lab, interactive }, secrets: [] }], secretsPersist: false, systems },
      },
      'clusters.update': { ok: true, value: { name: 'lab1' } },
    });
    const store = defineClustersStore(client)();
    await store.load();
    store.edit('lab1');
    store.form.threshold = 0.8;
    expect(await store.save()).toBe(true);
    const sent = client.calls.find((c) => c.method === 'clusters.update')?.payload as {
      config: { interactive?: unknown };
    };
    expect(sent.config.interactive).toEqual(interactive);
    // What the form sends, the host stores as it was: nothing reset to the defaults (best-fit, interleaved).
    expect(liveClusterSchema.parse(sent.config).interactive).toEqual(interactive);
  });

  it('puts a failed test at its field, and accepts an unknown host key with what was shown, then tests again', async () => {
    const client = fakeClient({
      'clusters.test': {
        ok: true,
        value: { ok: false, kind: 'auth-failed', message: 'alice@login: authentication failed' },
      },
      'clusters.list': { ok: true, value: { clusters: [], secretsPersist: false, systems } },
    });
    const store = defineClustersStore(client)();
    await store.load();
    store.form = formOf(lab);
    await store.test();
    expect(store.errors).toEqual({ user: 'alice@login: authentication failed' });

    client.answers['clusters.test'] = {
      ok: true,
      value: {
        ok: false,
        kind: 'host-key-unknown',
        host: 'login.example.org',
        port: 2222,
        fingerprint: FINGERPRINT,
        keyType: 'ssh-ed25519',
        message: 'not known',
      },
    };
    await store.test();
    expect(store.errors).toEqual({});
    expect(store.testResult).toMatchObject({ kind: 'host-key-unknown', fingerprint: FINGERPRINT });

    client.answers['clusters.acceptHostKey'] = {
      ok: true,
      value: { fingerprint: FINGERPRINT, keyType: 'ssh-ed25519' },
    };
    const after = {
      ok: true as const,
      system: 'slurm' as const,
      processors: 64,
      idle: 60,
      background: 4,
      fingerprint: FINGERPRINT,
    };
    const testAfter = client.call.bind(client);
    client.call = async (method, payload) => {
      if (method === 'clusters.acceptHostKey') client.answers['clusters.test'] = { ok: true, value: after };
      return testAfter(method, payload);
    };
    expect(await store.acceptKey()).toBe(true);
    const accept = client.calls.find((c) => c.method === 'clusters.acceptHostKey');
    expect(accept?.payload).toEqual({
      host: 'login.example.org',
      port: 2222,
      fingerprint: FINGERPRINT,
      cluster: (configOf(formOf(lab), systems) as { config: unknown }).config,
    });
    expect(client.calls.at(-1)?.method).toBe('clusters.test');
    expect(store.testResult).toEqual(after);

    client.answers['clusters.test'] = {
      ok: true,
      value: { ok: false, kind: 'no-batch-system', message: 'slurm not found' },
    };
    await store.test();
    expect(store.errors).toEqual({ system: 'slurm not found' });
  });

  it('sends a secret once, for the cluster edited, and says where it is kept', async () => {
    const client = fakeClient({
      'clusters.list': {
        ok: true,
        value: { clusters: [{ config: lab, secrets: ['password'] }], secretsPersist: true, systems },
      },
      'clusters.setSecret': { ok: true, value: { cluster: 'lab1', kind: 'password', persistent: true } },
    });
    const store = defineClustersStore(client)();
    await store.load();
    store.edit('lab1');
    expect(await store.setSecret('password', 's3cret')).toBe(true);
    expect(client.calls.find((c) => c.method === 'clusters.setSecret')?.payload).toEqual({
      cluster: 'lab1',
      kind: 'password',
      value: 's3cret',
    });
    expect(store.message).toContain('keychain');
    expect(JSON.stringify(store.$state)).not.toContain('s3cret');
  });

  it("stages a cluster's assets again and says what was copied, or shows why not", async () => {
    const client = fakeClient({
      'clusters.stageAssets': {
        ok: true,
        value: {
          cluster: 'lab1',
          dir: '/home/a/.concertina/assets',
          copied: ['apps/ft-demo.mjs'],
          unchanged: ['sdk/concertina-app.mjs', 'apps/slot-stub.sh'],
        },
      },
    });
    const store = defineClustersStore(client)();
    const pending = store.stageAssets('lab1');
    expect(store.staging).toBe('lab1');
    expect(await pending).toBe(true);
    expect(store.staging).toBeUndefined();
    expect(client.calls.at(-1)).toEqual({ method: 'clusters.stageAssets', payload: { name: 'lab1' } });
    expect(store.message).toBe('Assets on lab1 (/home/a/.concertina/assets): 1 file(s) copied, 2 already up to date.');
    client.answers['clusters.stageAssets'] = {
      ok: false,
      errors: [{ path: 'name', message: 'lab1: the assets cannot be staged: connection refused' }],
    };
    expect(await store.stageAssets('lab1')).toBe(false);
    expect(store.errors).toEqual({ form: 'lab1: the assets cannot be staged: connection refused' });
  });

  it('starts a live run and makes the views follow it; a refusal is shown', async () => {
    const log: string[] = [];
    const targets = {
      grid: { clear: () => void log.push('grid.clear'), refresh: async () => void log.push('grid.refresh') },
      jobs: { refresh: async () => void log.push('jobs.refresh') },
      activity: { clear: () => void log.push('activity.clear') },
    };
    const client = fakeClient({
      'run.startLive': { ok: false, errors: [{ path: 'clusters', message: 'no live cluster is configured' }] },
    });
    const store = defineClustersStore(client)();
    expect(await store.startLive(targets)).toBe(false);
    expect(store.errors.form).toBe('no live cluster is configured');
    expect(log).toEqual([]);
    client.answers['run.startLive'] = { ok: true, value: { clusters: ['lab1', 'here'] } };
    expect(await store.startLive(targets)).toBe(true);
    expect(store.liveStarted).toBe('Live run on lab1, here.');
    expect(log).toEqual(['grid.clear', 'activity.clear', 'grid.refresh', 'jobs.refresh']);
    // A stored run that could not be resumed was kept as a copy before the live run replaced it: the user is told where.
    client.answers['run.startLive'] = { ok: true, value: { clusters: ['lab1'], backup: '/data/run.db.unresumed.db' } };
    expect(await store.startLive(targets)).toBe(true);
    expect(store.liveStarted).toBe('Live run on lab1. The stored run was kept as a copy: /data/run.db.unresumed.db');
  });
});
