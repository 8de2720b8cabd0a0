// Bundles the extension into one file: dist/extension.js (vscode is provided by the host).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  minify: process.argv.includes('--minify'),
  logLevel: 'warning',
});
