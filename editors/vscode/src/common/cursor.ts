import * as vscode from 'vscode';

/** The cursor in `source`'s editor, when that editor is the active one: what a command run on
 * that document is about (the function under it, the program holding it). */
export function cursorIn(source: vscode.Uri): vscode.Position | undefined {
  const editor = vscode.window.activeTextEditor;
  return editor !== undefined && editor.document.uri.toString() === source.toString()
    ? editor.selection.active
    : undefined;
}
