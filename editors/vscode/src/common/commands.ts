import * as vscode from 'vscode';
import { OUTLINED_SCHEME, showOutlined, sourceUri } from './outlined';
import type { LanguageServer } from './server';

const RESTART_SERVER = 'pypto.restartServer';
const SHOW_OUTLINED_PROGRAM = 'pypto.showOutlinedProgram';
export const SHOW_LOGS = 'pypto.showLogs';

/**
 * The document `pypto.showOutlinedProgram` is about: the URI it was invoked on (editor title
 * button), else the active editor's; an outlined document stands for its source.
 */
function commandTarget(argument: unknown): vscode.Uri | undefined {
  const uri = argument instanceof vscode.Uri ? argument : vscode.window.activeTextEditor?.document.uri;
  if (uri === undefined) {
    return undefined;
  }
  return uri.scheme === OUTLINED_SCHEME ? sourceUri(uri) : uri;
}

async function showOutlinedProgram(argument: unknown): Promise<void> {
  const source = commandTarget(argument);
  if (source === undefined) {
    void vscode.window.showInformationMessage('PyPTO: open a Python file with a PyPTO program first.');
    return;
  }
  await showOutlined(source, true);
}

/** The commands this extension implements itself (`pypto.showOutlinedFunction` is the server's). */
export function registerCommands(server: LanguageServer, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand(RESTART_SERVER, () => server.restart()),
    vscode.commands.registerCommand(SHOW_OUTLINED_PROGRAM, showOutlinedProgram),
    vscode.commands.registerCommand(SHOW_LOGS, () => log.show()),
  );
}
