// Builds the Vue console (renderer/) into dist/renderer/, served by the headless web server at `/` under a strict
// CSP: no inline scripts and no eval, so the build emits only external module scripts.
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [vue()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // The polyfill would be injected into the entry module (not inline), but every browser we serve has
    // modulepreload; leaving it out keeps the page free of anything CSP-sensitive.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 2000,
  },
});
