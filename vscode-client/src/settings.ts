// The extension's settings, read in one place (namespace `shellgate`).
import * as vscode from 'vscode';

export const SECTION = 'shellgate';
export const POLICIES = ['untrusted', 'on-failure', 'on-request', 'never'] as const;
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;

export interface Settings {
  interpreter: string[];
  codexHome: string;
  approvalPolicy: string;
  sandboxMode: string;
  approvalTimeoutSeconds: number;
  broker: boolean;
  agent: { modelUrl: string; model: string; wireApi: string; apiKeyEnv: string };
}

export function read(): Settings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const interp = c.get<string[] | string>('interpreter', []);
  return {
    interpreter: (Array.isArray(interp) ? interp : interp ? [interp] : []).map(resolveVariables),
    codexHome: resolveVariables(c.get<string>('codexHome', '')),
    approvalPolicy: c.get<string>('approvalPolicy', 'on-request'),
    sandboxMode: c.get<string>('sandboxMode', 'workspace-write'),
    approvalTimeoutSeconds: c.get<number>('approvalTimeoutSeconds', 300),
    broker: c.get<boolean>('broker.enabled', true),
    agent: {
      modelUrl: c.get<string>('agent.modelUrl', ''),
      model: c.get<string>('agent.model', ''),
      wireApi: c.get<string>('agent.wireApi', 'chat'),
      apiKeyEnv: c.get<string>('agent.apiKeyEnv', 'OPENAI_API_KEY'),
    },
  };
}

// Settings whose change needs a new server process; the rest (approval policy, sandbox mode,
// Codex home) reach the running server as workspace/didChangeConfiguration.
export const RESTART_KEYS = ['interpreter'].map((k) => `${SECTION}.${k}`);

function resolveVariables(value: string): string {
  const home = process.env.HOME ?? '';
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
  return value
    .replace(/\$\{userHome\}/g, home)
    .replace(/\$\{workspaceFolder\}/g, folder)
    .replace(/^~(?=\/|$)/, home);
}

/** Where Codex's user rules live: the setting, else $CODEX_HOME, else ~/.codex. */
export function codexHome(s: Settings): string {
  return s.codexHome || process.env.CODEX_HOME || `${process.env.HOME ?? ''}/.codex`;
}
