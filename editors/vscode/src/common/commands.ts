import * as vscode from 'vscode';
import { OUTLINED_SCHEME, type OutlinedProgram, showOutlined, sourceUri } from './outlined';
import { cursorIn } from './cursor';
import type { LanguageServer } from './server';
import { SHOW_PASS_TRACE, showPassTrace } from './trace';

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

/** Opens the outlined program beside the source, at the function the cursor is in. */
async function showOutlinedProgram(server: LanguageServer, argument: unknown): Promise<void> {
  const source = commandTarget(argument);
  if (source === undefined) {
    void vscode.window.showInformationMessage('PyPTO: open a Python file with a PyPTO program first.');
    return;
  }
  const cursor = cursorIn(source);
  let at: OutlinedProgram['selection'];
  if (cursor !== undefined) {
    const cancel = new vscode.CancellationTokenSource();
    at = await server.outlinedProgram(source.toString(), cancel.token, cursor).then(
      (program) => program.selection,
      () => undefined, // no server: the document says why
    );
    cancel.dispose();
  }
  await showOutlined(source, true, at);
}

/** The commands this extension implements itself (`pypto.showOutlinedFunction` is the server's). */
export function registerCommands(server: LanguageServer, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.commands.registerCommand(RESTART_SERVER, () => server.restart()),
    vscode.commands.registerCommand(SHOW_OUTLINED_PROGRAM, (argument: unknown) =>
      showOutlinedProgram(server, argument),
    ),
    vscode.commands.registerCommand(SHOW_PASS_TRACE, (...args: unknown[]) =>
      showPassTrace((params, token) => server.passTrace(params, token), ...args),
    ),
    vscode.commands.registerCommand(SHOW_LOGS, () => log.show()),
  );
}
