// Registers `shellgate mcp` with VS Code's MCP server definition API (VS Code 1.101 and later),
// so an editor agent runs its commands through ShellGate's shell and its approvals come to the
// same dialog. Older VS Code has no such API, or (1.100) a preview that refuses us: nothing is
// registered, nothing else changes.
import * as vscode from 'vscode';
import { resolveInterpreter } from './interpreter';
import { MCP_PROVIDER_ID, mcpServerSpecs } from './mcpdefs';
import * as settings from './settings';

// The API is newer than the @types/vscode this extension builds against (1.91): reached by a
// feature check, never assumed.
interface McpApi {
  lm?: { registerMcpServerDefinitionProvider?: (id: string, provider: unknown) => vscode.Disposable };
  McpStdioServerDefinition?: new (
    label: string, command: string, args?: string[], env?: Record<string, string>, version?: string,
  ) => { cwd?: vscode.Uri };
}

export function registerMcpServers(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const api = vscode as unknown as McpApi;
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') {
    log.info('MCP: this VS Code has no MCP server definition API (1.101+); `shellgate mcp` not offered');
    return;
  }
  const changed = new vscode.EventEmitter<void>();
  const provider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: async () => {
      const s = settings.read();
      const interp = await resolveInterpreter(s.interpreter);
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, fsPath: f.uri.fsPath }));
      const bootstrap = context.asAbsolutePath('bundled/tool/serve.py');
      return mcpServerSpecs(folders, interp, bootstrap, s.codexHome).map((spec) => {
        const def = new Definition(spec.label, spec.command, spec.args, spec.env, context.extension.packageJSON.version);
        def.cwd = vscode.Uri.file(spec.cwd);
        return def;
      });
    },
  };
  let registration: vscode.Disposable;
  try {
    registration = register.call(api.lm, MCP_PROVIDER_ID, provider);
  } catch (e) {
    // VS Code 1.100 has a preview of the API that wants another manifest key and throws: the
    // rest of the extension must not go down with it.
    changed.dispose();
    log.info(`MCP: this VS Code refused the MCP server definition provider (${String(e)}); \`shellgate mcp\` not offered`);
    return;
  }
  context.subscriptions.push(
    registration,
    changed,
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(settings.SECTION)) changed.fire();
    }),
  );
  log.info('MCP: `shellgate mcp` offered to VS Code agents for each workspace folder');
}
