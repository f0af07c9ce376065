// @vitest-environment happy-dom
// When the page loses its host (issue 12): the HTTP client tries the event stream again with backoff while the host
// cannot be reached or still takes the page's token, and stops once the host refuses the token (it was restarted:
// each start has a new one); the page then says so and how to open it again, and the cluster cards no longer claim
// their clusters are connected.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import { createHttpClient } from '../../renderer/src/api/client.js';
import type { ClusterSnapshot, ConnectionState } from '../../renderer/src/api/types.js';
import ConnectionBanner from '../../renderer/src/components/ConnectionBanner.vue';
import GridView from '../../renderer/src/views/GridView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { fakeClient, gridSnapshot, type FakeClient } from './fake-client.js';

/** A WebSocket the test opens and closes; every one made is kept. */
class FakeSocket {
  static made: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.made.push(this);
  }
  open() {
    this.onopen?.();
  }
  close() {
    this.onclose?.();
  }
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  FakeSocket.made = [];
});

/** Waits (on the event loop, not on time) until `check` holds. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(check()).toBe(true);
}

describe('the HTTP client after the stream drops', () => {
  it('tries again while the host cannot be reached, and reconnects by itself when it is back', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const probes: number[] = [];
    vi.stubGlobal('fetch', async () => {
      probes.push(1);
      throw new TypeError('Failed to fetch');
    });
    const client = createHttpClient({ token: 't', origin: 'http://127.0.0.1:1', minBackoffMs: 1, maxBackoffMs: 2 });
    const states: ConnectionState[] = [];
    client.onConnection!((s) => states.push(s));
    client.subscribe(() => undefined);
    FakeSocket.made[0]!.open();
    FakeSocket.made[0]!.close();
    await until(() => FakeSocket.made.length === 2);
    expect(probes).toHaveLength(1);
    FakeSocket.made[1]!.close();
    await until(() => FakeSocket.made.length === 3);
    FakeSocket.made[2]!.open();
    expect(states).toEqual(['connecting', 'open', 'closed', 'connecting', 'closed', 'connecting', 'open']);
    expect(FakeSocket.made[2]!.url).toBe('ws://127.0.0.1:1/events?token=t');
  });

  it('stops trying once the host refuses the token (it was restarted), and says so', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.stubGlobal('WebSocket', FakeSocket);
    vi.stubGlobal(
      'fetch',
      async () =>
        new Response(JSON.stringify({ ok: false, errors: [{ path: '', message: 'missing or wrong token' }] }), {
          status: 401,
        }),
    );
    const client = createHttpClient({ token: 'old', origin: 'http://127.0.0.1:1', minBackoffMs: 1, maxBackoffMs: 2 });
    const states: ConnectionState[] = [];
    client.onConnection!((s) => states.push(s));
    client.subscribe(() => undefined);
    FakeSocket.made[0]!.open();
    FakeSocket.made[0]!.close();
    for (let i = 0; i < 100 && states.at(-1) !== 'refused'; i++) await flushPromises();
    // Nothing is scheduled: however long one waits, no new socket.
    expect(vi.getTimerCount()).toBe(0);
    vi.runAllTimers();
    expect(FakeSocket.made).toHaveLength(1);
    expect(states).toEqual(['connecting', 'open', 'closed', 'refused']);
  });
});

const card: ClusterSnapshot = {
  name: 'slurm',
  reachable: true,
  lastPoll: 0,
  runningMalleable: 1,
  processors: 8,
  threshold: 8,
  background: 0,
  nonPreemptible: 2,
  preallocatedUnused: 0,
  preemptible: 0,
  earmarked: 0,
  idle: 6,
  connection: 'open',
};

/** A fake client whose connection state the test sets. */
function withConnection(): { client: FakeClient; set: (s: ConnectionState) => void } {
  const client = fakeClient({ 'jobs.list': { ok: true, value: { jobs: [], total: 0, version: '1:0' } } });
  const listeners = new Set<(s: ConnectionState) => void>();
  client.onConnection = (l) => (listeners.add(l), () => listeners.delete(l));
  return { client, set: (s) => listeners.forEach((l) => l(s)) };
}

describe('the page when it has lost its host', () => {
  it('says nothing while connected; says it is trying again when the stream dropped; says the host restarted and how to open it', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const { client, set } = withConnection();
    client.answers['grid.snapshot'] = { ok: true, value: gridSnapshot({ time: 61, clusters: [card] }) };
    client.answers['grid.history'] = { ok: true, value: { samples: [] } };
    const stores = createStores(client);
    const global = { plugins: [pinia], provide: { [STORES as symbol]: stores } };
    const banner = mount(ConnectionBanner, { global });
    const grid = mount(GridView, { global });
    stores.grid.connect();
    await flushPromises();
    const tag = () => grid.find('[data-testid="cluster-card-slurm"] [data-field="connection"]').text();
    // Still connecting at first: not lost.
    expect(banner.find('[data-testid="connection-banner"]').exists()).toBe(false);
    set('open');
    await flushPromises();
    expect(banner.find('[data-testid="connection-banner"]').exists()).toBe(false);
    expect(tag()).toBe('connected');

    set('closed');
    await flushPromises();
    const lost = banner.get('[data-testid="connection-banner"]');
    expect(lost.text()).toContain('The connection to the host is lost');
    expect(lost.text()).toContain('Trying again by itself');
    expect(lost.text()).toContain('as of 0:01:01');
    expect(tag()).toBe('unknown');

    set('refused');
    await flushPromises();
    const restarted = banner.get('[data-testid="connection-banner"]');
    expect(restarted.attributes('data-state')).toBe('refused');
    expect(restarted.text()).toContain('The host was restarted');
    expect(restarted.text()).toContain('Open: http://127.0.0.1:…/?token=…');
    expect(tag()).toBe('unknown');

    banner.unmount();
    grid.unmount();
  });

  it('a page loaded after the restart with its old token says the host restarted', async () => {
    const pinia = createPinia();
    setActivePinia(pinia);
    const { client, set } = withConnection();
    const stores = createStores(client);
    const banner = mount(ConnectionBanner, { global: { plugins: [pinia], provide: { [STORES as symbol]: stores } } });
    stores.grid.connect();
    set('refused');
    await flushPromises();
    expect(banner.get('[data-testid="connection-banner"]').text()).toContain('The host was restarted');
    banner.unmount();
  });
});
