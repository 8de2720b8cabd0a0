// Which Python runs the server: the setting, else the Python extension's (only if installed:
// a hard dependency would keep the extension from activating offline), else python3.
import * as vscode from 'vscode';

export interface Interpreter { command: string; args: string[]; source: string }

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string }): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  };
}

export async function resolveInterpreter(setting: string[]): Promise<Interpreter> {
  if (setting.length > 0) {
    return { command: setting[0], args: setting.slice(1), source: 'setting shellgate.interpreter' };
  }
  const fromPython = await fromPythonExtension();
  if (fromPython) return { command: fromPython, args: [], source: 'the Python extension' };
  return { command: 'python3', args: [], source: 'the default: python3 on PATH' };
}

async function fromPythonExtension(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const envs = api?.environments;
    if (!envs) return undefined;
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const env = await envs.resolveEnvironment(envs.getActiveEnvironmentPath(resource));
    return env?.executable?.uri?.fsPath;
  } catch {
    return undefined; // a broken Python extension must not stop ShellGate
  }
}
