// The language server process: `shellgate serve` from the libraries bundled in the .vsix,
// started with the resolved interpreter, restarted on demand.
import * as vscode from 'vscode';
import {
  LanguageClient, LanguageClientOptions, ServerOptions, State, StaticFeature, TransportKind,
} from 'vscode-languageclient/node';
import { resolveInterpreter } from './interpreter';
import { LANGUAGE_ID } from './detect';
import * as settings from './settings';

/** Tells the server that this client answers `shellgate/approve` with a modal dialog. */
const approveCapability: StaticFeature = {
  fillClientCapabilities(caps) {
    caps.experimental = { ...(caps.experimental ?? {}), shellgate: { approve: true } };
  },
  initialize() {},
  getState() { return { kind: 'static' }; },
  clear() {},
};

export type ClientHook = (client: LanguageClient) => void;

export class Server {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  private readonly changed = new vscode.EventEmitter<LanguageClient | undefined>();
  readonly onDidChangeClient = this.changed.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    private readonly hooks: ClientHook[],
  ) {}

  get current(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  /** The running client, starting the server first if needed. */
  async ensure(): Promise<LanguageClient | undefined> {
    if (this.current) return this.current;
    this.starting ??= this.start().finally(() => { this.starting = undefined; });
    return this.starting;
  }

  async restart(): Promise<LanguageClient | undefined> {
    await this.stop();
    return this.ensure();
  }

  async stop(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    this.changed.fire(undefined);
    if (old) {
      try { await old.stop(5000); } catch (e) { this.log.warn(`stopping the server: ${String(e)}`); }
      await old.dispose();
    }
  }

  private async start(): Promise<LanguageClient | undefined> {
    const s = settings.read();
    const interp = await resolveInterpreter(s.interpreter);
    const bootstrap = this.context.asAbsolutePath('bundled/tool/serve.py');
    const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: '1', PYTHONNOUSERSITE: '1' };
    if (s.codexHome) env.CODEX_HOME = s.codexHome;
    const serverOptions: ServerOptions = {
      command: interp.command,
      args: [...interp.args, bootstrap],
      transport: TransportKind.stdio,
      options: { env, cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: LANGUAGE_ID },
        { scheme: 'untitled', language: LANGUAGE_ID },
        // The admin's requirements.toml, whatever language another extension gives it (toml,
        // plaintext): the server reads it as Codex does (diagnostics, hover, completion).
        { scheme: 'file', pattern: '**/requirements.toml' },
      ],
      outputChannel: this.log,
      traceOutputChannel: this.log,
      revealOutputChannelOn: 4, // RevealOutputChannelOn.Never: errors surface in our status item
      // Hovers fold the full trace in <details>; VS Code's sanitizer keeps only its safe tags, and
      // command links stay off (isTrusted false): a rule's link opens a file, nothing else.
      markdown: { supportHtml: true, isTrusted: false },
      initializationOptions: initializationOptions(s),
      synchronize: {
        configurationSection: settings.SECTION,
        fileEvents: vscode.workspace.createFileSystemWatcher('**/*.rules'),
      },
    };
    this.log.info(`starting: ${interp.command} ${[...interp.args, bootstrap].join(' ')} (interpreter from ${interp.source})`);
    const client = new LanguageClient('shellgate', 'ShellGate', serverOptions, clientOptions);
    client.registerFeature(approveCapability);
    for (const hook of this.hooks) hook(client);
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      this.log.error(`the server did not start: ${String(e)}`);
      void vscode.window.showErrorMessage(
        `ShellGate: the language server did not start with ${interp.command} (from ${interp.source}). ` +
        'It needs Python 3.11, 3.12 or 3.13; set "shellgate.interpreter".', 'Show Logs', 'Open Settings',
      ).then((pick) => {
        if (pick === 'Show Logs') this.log.show();
        if (pick === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'shellgate.interpreter');
      });
      this.client = undefined;
      try { await client.dispose(); } catch { /* already dead */ }
      this.changed.fire(undefined);
      return undefined;
    }
    this.changed.fire(client);
    return client;
  }
}

export function initializationOptions(s: settings.Settings): Record<string, unknown> {
  return {
    approvalPolicy: s.approvalPolicy,
    sandbox: s.sandboxMode,
    approvalTimeoutSeconds: s.approvalTimeoutSeconds,
    codexHome: s.codexHome || undefined,
    replay: { enabled: s.replay.enabled, sources: s.replay.sources.length ? s.replay.sources : undefined, clientShowsChanges: true },
  };
}
