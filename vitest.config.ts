import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The Vue plugin compiles single-file components for the renderer's tests (test/renderer).
  plugins: [vue()],
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
