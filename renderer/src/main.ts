// The console's entry: one API client (IPC in the window, else HTTP with the token from ?token=), Pinia, the stores over that client, and the app.
import { createPinia } from 'pinia';
import { config as zodConfig } from 'zod';
import { createApp } from 'vue';
import App from './App.vue';
import { createHttpClient, takeToken } from './api/client.js';
import { createIpcClient, desktopBridge } from './api/ipc-client.js';
import { createStores, STORES } from './stores/index.js';

// Under the page's CSP (script-src 'self', no eval) zod must not even probe for eval.
zodConfig({ jitless: true });

// In the Electron window the preload provides the bridge; in a browser the web mode's token is in the URL.
const bridge = desktopBridge();
const client = bridge ? createIpcClient(bridge) : createHttpClient({ token: takeToken() });
const pinia = createPinia();
const app = createApp(App);
app.use(pinia);
app.provide(STORES, createStores(client));
app.mount('#app');
