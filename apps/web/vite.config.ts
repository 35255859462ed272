import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Workspace packages are consumed from source through their "development" export condition.
export default defineConfig({
  plugins: [react()],
  base: '/',
  resolve: { conditions: ['development'] },
  build: { outDir: 'dist', sourcemap: true },
  server: { proxy: { '/svc': { target: 'http://127.0.0.1:8080', ws: true } } },
});
