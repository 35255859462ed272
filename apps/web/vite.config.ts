import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Writes a `.br` and a `.gz` copy beside each text file of the build (decision 0072): the server
 * (apps/api/src/web-app.ts) sends the one the browser accepts, compressed once at the highest level
 * instead of on every request. Files smaller than a packet, and copies that save nothing, are skipped.
 */
function precompress(): Plugin {
  return {
    name: 'svc-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const outDir = options.dir!;
      const names = Object.keys(bundle).filter((name) => /\.(?:js|css|html|svg|json)$/.test(name));
      await Promise.all(
        names.map(async (name) => {
          const path = join(outDir, name);
          const text = await readFile(path);
          if (text.length < 1024) return;
          const [br, gz] = await Promise.all([
            brotli(text, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
            gzipAsync(text, { level: 9 }),
          ]);
          if (br.length < text.length) await writeFile(`${path}.br`, br);
          if (gz.length < text.length) await writeFile(`${path}.gz`, gz);
        }),
      );
    },
  };
}

// Workspace packages are consumed from source through their "development" export condition.
export default defineConfig({
  plugins: [react(), precompress()],
  base: '/',
  resolve: { conditions: ['development'] },
  build: { outDir: 'dist', sourcemap: true },
  server: { proxy: { '/svc': { target: 'http://127.0.0.1:8080', ws: true } } },
});
