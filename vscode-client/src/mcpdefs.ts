// What the extension offers VS Code's agents over MCP: one `shellgate mcp` per workspace folder,
// started like the language server (the interpreter it resolved, the bundled libraries). Pure,
// so it is unit tested without VS Code.
export const MCP_PROVIDER_ID = 'shellgate.mcp';

export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export function mcpServerSpecs(
  folders: readonly { name: string; fsPath: string }[],
  interpreter: { command: string; args: string[] },
  bootstrap: string,
  codexHome: string,
): McpServerSpec[] {
  const env: Record<string, string> = { PYTHONUNBUFFERED: '1', PYTHONNOUSERSITE: '1' };
  if (codexHome) env.CODEX_HOME = codexHome;
  return folders.map((f) => ({
    label: folders.length > 1 ? `ShellGate (${f.name})` : 'ShellGate',
    command: interpreter.command,
    args: [...interpreter.args, bootstrap, 'mcp', '--workspace', f.fsPath],
    env: { ...env },
    cwd: f.fsPath,
  }));
}
