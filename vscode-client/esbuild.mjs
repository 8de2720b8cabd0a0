// Bundles the extension into one file: dist/extension.js (vscode is provided by the host).
// With --tests: the unit tests of the pure modules into out/test/ for `node --test`.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

if (process.argv.includes('--tests')) {
  await build({
    entryPoints: readdirSync('test').filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`),
    bundle: true, outdir: 'out/test', format: 'cjs', platform: 'node', target: 'node20',
    external: ['vscode'], logLevel: 'warning',
  });
  process.exit(0);
}

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
