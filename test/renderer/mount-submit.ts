// A view mounted as the console mounts it (a fresh Pinia, the stores over `client`), attached to the page so that its
// popups and focus behave as they do there: the Submit view most of all.
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import SettingsView from '../../renderer/src/views/SettingsView.vue';
import SubmitView from '../../renderer/src/views/SubmitView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { fakeClient, type FakeClient } from './fake-client.js';

export function mountView(view: typeof SettingsView | typeof SubmitView, client: FakeClient = fakeClient()) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const stores = createStores(client);
  const wrapper = mount(view, {
    global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
    attachTo: 'body',
  });
  return { wrapper, stores, client };
}

export const mountSubmit = (client: FakeClient = fakeClient()) => mountView(SubmitView, client);
