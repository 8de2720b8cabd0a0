// The MCP server definitions the extension offers VS Code's agents (VS Code 1.101+).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join as pathJoin } from 'node:path';
import { test } from 'node:test';
import { MCP_PROVIDER_ID, mcpServerSpecs } from '../src/mcpdefs';

const manifest = JSON.parse(readFileSync(pathJoin(__dirname, '..', '..', 'package.json'), 'utf8'));

test('the manifest declares the provider the code registers', () => {
  const ids = manifest.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id);
  assert.deepEqual(ids, [MCP_PROVIDER_ID]);
});

test('one `shellgate mcp` per workspace folder, started like the language server', () => {
  const interp = { command: '/usr/bin/python3', args: ['-X', 'utf8'] };
  const [one] = mcpServerSpecs([{ name: 'app', fsPath: '/src/app' }], interp, '/ext/bundled/tool/serve.py', '');
  assert.equal(one.label, 'ShellGate');
  assert.equal(one.command, '/usr/bin/python3');
  assert.deepEqual(one.args, ['-X', 'utf8', '/ext/bundled/tool/serve.py', 'mcp', '--workspace', '/src/app']);
  assert.equal(one.cwd, '/src/app');
  assert.equal(one.env.CODEX_HOME, undefined);
  const two = mcpServerSpecs([{ name: 'a', fsPath: '/a' }, { name: 'b', fsPath: '/b' }], interp, 'serve.py', '/h');
  assert.deepEqual(two.map((s) => s.label), ['ShellGate (a)', 'ShellGate (b)']);
  assert.ok(two.every((s) => s.env.CODEX_HOME === '/h'));
  assert.deepEqual(mcpServerSpecs([], interp, 'serve.py', ''), []);
});
