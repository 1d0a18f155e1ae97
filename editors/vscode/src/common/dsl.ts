import * as vscode from 'vscode';

/**
 * The context key the manifest's `when` clauses read (`resourcePath in pypto.dslPaths`): the
 * paths of open PyPTO DSL documents. Paths, not URIs: in a remote window (code-server, SSH) the
 * workbench knows a file as `vscode-remote://...` while the extension sees `file://...`, and
 * `resourcePath` is the file system path of a local file and the URI path of a remote one, so
 * both are listed.
 */
export const DSL_PATHS_KEY = 'pypto.dslPaths';

/**
 * Whether a Python text is PyPTO DSL code: it imports `pypto` (`import pypto.language as pl`,
 * `from pypto import language`), which is what the server checks before analysing anything.
 * Used where the client has to decide without asking: the title-bar button and the status.
 */
export function isDslText(text: string): boolean {
  return /^[ \t]*(?:import[ \t]+pypto\b|from[ \t]+pypto\b)/m.test(text);
}

/** Whether an open document is DSL code (false for one that is not open). */
export function isDslDocument(uri: vscode.Uri): boolean {
  const key = uri.toString();
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  return document !== undefined && document.languageId === 'python' && isDslText(document.getText());
}

/**
 * Keeps `pypto.dslPaths` equal to the open Python documents that are DSL code, so the Show
 * Outlined Program button appears in their title bar only. An edit re-reads only its document,
 * and the context is set only when the set changes.
 */
export function trackDslDocuments(): vscode.Disposable {
  const dsl = new Set<string>();
  let published: string | undefined;
  const publish = (): void => {
    const paths = [...new Set([...dsl].flatMap((uri) => [vscode.Uri.parse(uri).fsPath, vscode.Uri.parse(uri).path]))];
    paths.sort();
    const key = paths.join('\n');
    if (key !== published) {
      published = key;
      void vscode.commands.executeCommand('setContext', DSL_PATHS_KEY, paths);
    }
  };
  const check = (document: vscode.TextDocument): void => {
    const key = document.uri.toString();
    if (document.uri.scheme !== 'pypto-outlined' && document.languageId === 'python' && isDslText(document.getText())) {
      dsl.add(key);
    } else {
      dsl.delete(key);
    }
  };
  vscode.workspace.textDocuments.forEach(check);
  publish();
  return vscode.Disposable.from(
    vscode.workspace.onDidOpenTextDocument((document) => {
      check(document);
      publish();
    }),
    vscode.workspace.onDidCloseTextDocument((document) => {
      dsl.delete(document.uri.toString());
      publish();
    }),
    vscode.workspace.onDidChangeTextDocument(({ document }) => {
      check(document);
      publish();
    }),
  );
}
