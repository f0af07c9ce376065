// Builds the Vue console (renderer/) into dist/renderer/, served by the headless web server at `/` under a strict
// CSP: no inline scripts and no eval, so the build emits only external module scripts.
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  // Copied as is into dist/renderer/icons: the window and favicon icon.
  publicDir: fileURLToPath(new URL('./assets/public', import.meta.url)),
  plugins: [vue()],
  build: {
    outDir: fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    // The polyfill would be injected into the entry module (not inline), but every browser we serve has
    // modulepreload; leaving it out keeps the page free of anything CSP-sensitive.
    modulePreload: { polyfill: false },
    // The libraries change far less often than the console: their own chunks stay cached across upgrades and load
    // in parallel. ECharts is the largest (about half of the total).
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'echarts', priority: 2, test: /node_modules[\\/](echarts|zrender|vue-echarts)[\\/]/ },
            {
              name: 'naive-ui',
              priority: 1,
              test: /node_modules[\\/](naive-ui|vueuc|vooks|css-render|@css-render|seemly|evtd|treemate|date-fns|lodash-es|@juggle|vdirs|async-validator)[\\/]/,
            },
            { name: 'vue', priority: 3, test: /node_modules[\\/](@vue|vue|pinia)[\\/]/ },
          ],
        },
      },
    },
    chunkSizeWarningLimit: 800,
  },
});
