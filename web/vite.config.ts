import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// Built into dist/web, which the public listener serves (src/api/web.ts): hashed files under assets/.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
