import * as vscode from 'vscode';
import { registerCommands, SHOW_LOGS } from './common/commands';
import { createLogChannel } from './common/log';
import { trackDslDocuments } from './common/dsl';
import {
  keepOutlinedLanguage,
  OUTLINED_SCHEME,
  OutlinedProgramProvider,
  restoreOutlinedPrograms,
} from './common/outlined';
import { findBundledLauncher, pythonNames, systemProbes } from './common/probe';
import { PythonInterpreters } from './common/python';
import { LanguageServer } from './common/server';
import {
  affectsDiagnostics,
  affectsOutlinedProgram,
  affectsServerStart,
  readServerOptions,
  SECTION,
} from './common/settings';
import { ServerStatus, showStatusBarItem } from './common/status';
import { PassTraceProvider, TRACE_SCHEME } from './common/trace';

/** Kept for `deactivate`, which must wait for the server to shut down cleanly. */
let server: LanguageServer | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = createLogChannel();
  const status = new ServerStatus();
  const interpreters = new PythonInterpreters(log);
  const outlined = new OutlinedProgramProvider(
    (uri, token) => languageServer.outlinedProgram(uri, token),
    () => readServerOptions().analysis.debounceMs,
  );
  const traces = new PassTraceProvider(
    (params, token) => languageServer.passTrace(params, token),
    () => readServerOptions().analysis.debounceMs,
  );
  const serverCwd = context.extensionUri.fsPath;
  const languageServer = new LanguageServer({
    log,
    status,
    interpreters,
    probes: systemProbes(serverCwd),
    bundledLauncher: await findBundledLauncher(serverCwd),
    pythonNames: pythonNames(),
    onReady: () => {
      outlined.refreshAll();
      traces.refreshAll();
    },
    serverCwd,
  });
  server = languageServer;
  const restart = (): void => void languageServer.restart();

  context.subscriptions.push(
    log,
    status,
    showStatusBarItem(status, SHOW_LOGS),
    outlined,
    vscode.workspace.registerTextDocumentContentProvider(OUTLINED_SCHEME, outlined),
    traces,
    vscode.workspace.registerTextDocumentContentProvider(TRACE_SCHEME, traces),
    keepOutlinedLanguage([OUTLINED_SCHEME, TRACE_SCHEME]),
    restoreOutlinedPrograms(context.workspaceState),
    trackDslDocuments(),
    vscode.workspace.onDidChangeTextDocument((event) => {
      outlined.sourceChanged(event.document.uri);
      traces.sourceChanged(event.document.uri);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsServerStart(event)) {
        restart();
        return;
      }
      if (event.affectsConfiguration(SECTION)) {
        languageServer.configurationChanged();
      }
      if (affectsDiagnostics(event)) {
        status.forgetPending();
      }
      if (affectsOutlinedProgram(event)) {
        outlined.refreshAll();
        traces.refreshAll();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(restart),
    registerCommands(languageServer, log),
    await interpreters.onDidChange(restart),
  );
  await languageServer.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
