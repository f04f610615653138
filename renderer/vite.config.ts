// Vite config of the console: React, built into dist/console (served by the server at `/` and
// shipped in the npm package and the desktop app); in dev, /api (HTTP and the realtime
// WebSocket) is proxied to the server so that hot reload works against real data.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const target = process.env.HOMEBASE_DEV_SERVER ?? 'http://127.0.0.1:4700';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    // Swagger UI is one large lazy chunk, loaded by the API reference page only.
    chunkSizeWarningLimit: 2500,
    sourcemap: false,
    // No per-plugin timing report on every build.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
  server: {
    host: '127.0.0.1',
    proxy: { '/api': { target, ws: true } },
  },
});
