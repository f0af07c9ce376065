// The Submit view mounted as the console mounts it (a fresh Pinia, the stores over `client`), attached to the page
// so that its popups and focus behave as they do there.
import { mount } from '@vue/test-utils';
import { createPinia, setActivePinia } from 'pinia';
import SubmitView from '../../renderer/src/views/SubmitView.vue';
import { createStores, STORES } from '../../renderer/src/stores/index.js';
import { fakeClient, type FakeClient } from './fake-client.js';

export function mountSubmit(client: FakeClient = fakeClient()) {
  const pinia = createPinia();
  setActivePinia(pinia);
  const stores = createStores(client);
  const wrapper = mount(SubmitView, {
    global: { plugins: [pinia], provide: { [STORES as symbol]: stores } },
    attachTo: 'body',
  });
  return { wrapper, stores, client };
}
