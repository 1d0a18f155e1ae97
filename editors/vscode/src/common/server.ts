import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions as ProcessOptions,
  State,
} from 'vscode-languageclient/node';
import {
  isOutlinedProgram,
  OUTLINED_LANGUAGE,
  OUTLINED_REQUEST,
  OUTLINED_SCHEME,
  type OutlinedProgram,
  type OutlinedProgramParams,
  showOutlinedDocument,
} from './outlined';
import { callersLens } from './references';
import { isDslDocument } from './dsl';
import type { PythonInterpreters } from './python';
import {
  failureMessage,
  rejectionLine,
  resolveServerCommand,
  type Failure,
  type Probes,
  type ServerCommand,
} from './resolve';
import { readServerOptions, readServerStartSettings, SECTION } from './settings';
import { isPassTrace, PASS_TRACE_REQUEST, type PassTrace, type PassTraceParams } from './trace';
import { analysisTracking, type ServerStatus } from './status';

const CLIENT_ID = 'pypto';
const CLIENT_NAME = 'PyPTO Language Server';
const OPEN_SETTINGS = 'Open Settings';
const SHOW_LOGS = 'Show Logs';

const FAILURE_DETAIL: Record<Failure, string> = {
  'no-python': 'no Python 3.10 or newer found',
  'no-server': 'no server to run',
};

/**
 * Opens the settings editor at the server settings, on the tab where they take effect: in a
 * remote window (Remote-SSH, WSL, containers, code-server) the server runs on the remote
 * machine, and its machine-scoped settings are read from the Remote tab, not the User tab.
 */
export function openServerSettings(): Thenable<unknown> {
  const query = { query: `${SECTION}.server` };
  return vscode.env.remoteName === undefined
    ? vscode.commands.executeCommand('workbench.action.openSettings', query)
    : vscode.commands.executeCommand('workbench.action.openRemoteSettings', query);
}

/**
 * DSL programs are embedded in ordinary Python files, saved or not. Outlined documents are
 * included so that go-to-definition inside them leads back to the source; the server gives
 * them no diagnostics or other features.
 */
const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'python' },
  { scheme: 'untitled', language: 'python' },
  { scheme: OUTLINED_SCHEME, language: OUTLINED_LANGUAGE },
];

/**
 * Whether the status should wait for the server's diagnostics on `uri`: for DSL documents only,
 * so typing in any other Python file never shows "analysing".
 */
function publishesDiagnostics(uri: vscode.Uri): boolean {
  return uri.scheme !== OUTLINED_SCHEME && readServerOptions(uri).diagnostics.enable && isDslDocument(uri);
}

/**
 * A message as a notification shows it: toasts render no Markdown, so code spans are quoted
 * instead of showing their backticks, and only the first line of a multi-line error (a stack
 * trace belongs in the log, which the toast's Show Logs button opens).
 */
export function toastText(message: string): string {
  const [first = ''] = message.split('\n');
  return first.replaceAll('`', "'");
}

export interface ServerDependencies {
  readonly log: vscode.LogOutputChannel;
  readonly status: ServerStatus;
  readonly interpreters: PythonInterpreters;
  readonly probes: Probes;
  /** The bundled server's launcher script; undefined in a build without the bundle. */
  readonly bundledLauncher: string | undefined;
  /** Interpreter names looked up on PATH when no interpreter is configured. */
  readonly pythonNames: readonly string[];
  /** Called each time a server process has finished initialising. */
  readonly onReady: () => void;
  /**
   * Working directory of the server: the extension's own folder. Never the workspace, because
   * `python -m pypto_lsp` would import a `pypto_lsp` package found there, from any repository
   * the user opens. The server learns the workspace from `initialize`.
   */
  readonly serverCwd: string;
}

function firstWorkspaceFolder(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

/**
 * The process to run, talking LSP over its stdin/stdout. No `transport` on purpose: with
 * `TransportKind.stdio` the client appends `--stdio` to the command line, which `pypto-lsp`
 * (stdio by default) and any user-configured command may not accept.
 */
function processOptions(server: ServerCommand, cwd: string): ProcessOptions {
  return {
    command: server.command,
    args: [...server.args],
    options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
  };
}

function clientOptions(log: vscode.LogOutputChannel, status: ServerStatus): LanguageClientOptions {
  const folder = firstWorkspaceFolder();
  return {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: log,
    traceOutputChannel: log,
    initializationOptions: { [SECTION]: readServerOptions(folder) },
    // No `synchronize.configurationSection`: the client would send didChangeConfiguration
    // itself, also to a server that failed to start, and show that failure as a second toast
    // with a stack trace. `LanguageServer.configurationChanged` tells a running server only.
    middleware: {
      ...analysisTracking(status, publishesDiagnostics),
      ...callersLens,
      window: { showDocument: showOutlinedDocument },
    },
  };
}

/**
 * Owns the one client/server pair of the window. Start, restart and stop are queued so a burst
 * of setting changes never runs two servers at once.
 */
export class LanguageServer {
  private client: LanguageClient | undefined;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ServerDependencies) {}

  start(): Promise<void> {
    return this.enqueue(() => this.launch());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      await this.shutdown();
      await this.launch();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.shutdown());
  }

  /**
   * Sends `pypto/outlinedProgram` (with the rawNames setting, and the cursor when given);
   * rejects when no server is running.
   */
  async outlinedProgram(
    uri: string,
    token: vscode.CancellationToken,
    position?: vscode.Position,
  ): Promise<OutlinedProgram> {
    const client = this.running();
    const rawNames = readServerOptions(vscode.Uri.parse(uri)).outlinedProgram.rawNames;
    const at = position === undefined ? {} : { position: { line: position.line, character: position.character } };
    const params: OutlinedProgramParams = { uri, rawNames, ...at };
    const result: unknown = await client.sendRequest(OUTLINED_REQUEST, params, token);
    if (!isOutlinedProgram(result)) {
      throw new Error(`${OUTLINED_REQUEST} answered without a text field`);
    }
    return result;
  }

  /** Sends `pypto/passTrace` (with the rawNames setting); rejects when no server is running. */
  async passTrace(params: PassTraceParams, token: vscode.CancellationToken): Promise<PassTrace> {
    const client = this.running();
    const rawNames = readServerOptions(vscode.Uri.parse(params.uri)).outlinedProgram.rawNames;
    const result: unknown = await client.sendRequest(PASS_TRACE_REQUEST, { rawNames, ...params }, token);
    if (!isPassTrace(result)) {
      throw new Error(`${PASS_TRACE_REQUEST} answered without a programs field`);
    }
    return result;
  }

  private running(): LanguageClient {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      throw new Error('the PyPTO language server is not running');
    }
    return client;
  }

  /** Tells a running server that `pypto.*` settings changed (it pulls them); nothing otherwise. */
  configurationChanged(): void {
    const client = this.client;
    if (client !== undefined && client.isRunning()) {
      void client.sendNotification(DidChangeConfigurationNotification.type, { settings: null }).catch(() => undefined);
    }
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async launch(): Promise<void> {
    const { log, status, interpreters, probes, bundledLauncher, pythonNames } = this.deps;
    status.setLifecycle('starting');
    const folder = firstWorkspaceFolder();
    const resolution = await resolveServerCommand({
      settings: readServerStartSettings(folder),
      activeInterpreter: () => interpreters.active(folder),
      bundledLauncher,
      pythonNames,
      probes,
    });
    resolution.rejected.forEach((rejection) => log.warn(rejectionLine(rejection)));
    if (!resolution.ok) {
      this.fail(failureMessage(resolution.failure, resolution.rejected), FAILURE_DETAIL[resolution.failure]);
      return;
    }
    const { server } = resolution;
    log.info(`Starting ${[server.command, ...server.args].join(' ')} (from ${server.origin})`);
    const client = new LanguageClient(
      CLIENT_ID,
      CLIENT_NAME,
      processOptions(server, this.deps.serverCwd),
      clientOptions(log, status),
    );
    client.onDidChangeState(({ newState }) => {
      if (newState === State.Running) {
        status.setLifecycle('ready', server.origin);
        this.deps.onReady();
      } else if (newState === State.Starting) {
        status.setLifecycle('starting');
      } else if (this.client === client) {
        status.setLifecycle('failed', 'the server process stopped; see the log');
      }
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      this.client = undefined;
      await client.dispose().catch(() => undefined);
      this.fail(
        `PyPTO: the language server (${server.origin}) did not start: ${String(error)}`,
        'the server did not start',
      );
    }
  }

  private async shutdown(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        await client.dispose();
      } catch (error) {
        this.deps.log.warn(`Stopping the language server: ${String(error)}`);
      }
    }
    this.deps.status.setLifecycle('stopped');
  }

  private fail(message: string, detail: string): void {
    this.deps.log.error(message);
    this.deps.status.setLifecycle('failed', detail);
    void vscode.window.showErrorMessage(toastText(message), OPEN_SETTINGS, SHOW_LOGS).then((choice) => {
      if (choice === OPEN_SETTINGS) {
        void openServerSettings();
      } else if (choice === SHOW_LOGS) {
        this.deps.log.show();
      }
    });
  }
}
