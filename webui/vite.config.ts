import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';

const COMPRESSIBLE = /\.(js|css|ttf|svg|json|map)$/;
const MIN_BYTES = 1024;

/** Writes `<asset>.gz` beside every compressible asset, so the server never gzips at request time. */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'mnnwb-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const name of readdirSync(assets)) {
        const file = join(assets, name);
        if (!COMPRESSIBLE.test(name) || statSync(file).size < MIN_BYTES) continue;
        writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

// The server renders the HTML shell itself from the manifest, so the build has a script entry
// instead of an index.html, and every asset lives under /static/ with a content hash.
export default defineConfig({
  base: '/static/',
  plugins: [preact(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    chunkSizeWarningLimit: 6000,
    rollupOptions: {
      input: 'src/main.tsx',
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
  worker: { format: 'es' },
});
