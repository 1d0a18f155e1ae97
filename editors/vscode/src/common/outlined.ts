import * as vscode from 'vscode';
import type { ShowDocumentRequest } from 'vscode-languageclient/node';

/** Scheme of the read-only documents that show a source file's outlined program. */
export const OUTLINED_SCHEME = 'pypto-outlined';

/** The server's custom request: params `{uri}` of a source document, result `{text}`. */
export const OUTLINED_REQUEST = 'pypto/outlinedProgram';

export interface OutlinedProgramParams {
  readonly uri: string;
}

export interface OutlinedProgram {
  readonly text: string;
}

/** Asks the server for the outlined program of the source document `uri`. */
export type OutlinedProgramFetcher = (uri: string, token: vscode.CancellationToken) => Promise<OutlinedProgram>;

export function isOutlinedProgram(value: unknown): value is OutlinedProgram {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)['text'] === 'string';
}

/**
 * The outlined document of `source`: `pypto-outlined:<path of the source>`, the form the server
 * uses in the locations and `window/showDocument` requests it sends. Its `.py` path gives the
 * document Python highlighting. A source that is not a file (an untitled buffer) also carries
 * its URI in the query, since its path alone does not name it.
 */
export function outlinedUri(source: vscode.Uri): vscode.Uri {
  const query = source.scheme === 'file' ? '' : source.toString();
  return vscode.Uri.from({ scheme: OUTLINED_SCHEME, path: source.path, query });
}

/**
 * The source document an outlined document shows. Besides the two forms `outlinedUri` makes,
 * this reads the server's form for an untitled buffer, `pypto-outlined:Untitled-1`, whose path
 * is not absolute.
 */
export function sourceUri(outlined: vscode.Uri): vscode.Uri {
  if (outlined.query !== '') {
    return vscode.Uri.parse(outlined.query, true);
  }
  return outlined.path.startsWith('/')
    ? vscode.Uri.file(outlined.path)
    : vscode.Uri.from({ scheme: 'untitled', path: outlined.path });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Serves outlined documents from the server and keeps open ones in step with their source:
 * an edit schedules one refresh per source, `delayMs` after the last keystroke.
 */
export class OutlinedProgramProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly fetch: OutlinedProgramFetcher,
    private readonly delayMs: () => number,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const source = sourceUri(uri);
    try {
      const { text } = await this.fetch(source.toString(), token);
      // the server answers with a comment whenever it knows the document; empty means it does not
      return text.trim() === ''
        ? `# ${source.toString()} is not analysed by the language server: there is nothing to show.\n`
        : text;
    } catch (error) {
      return `# The outlined program of ${source.toString()} is not available: ${describe(error)}\n`;
    }
  }

  /** Schedules a refresh of the outlined view of `source`, if one is open. */
  sourceChanged(source: vscode.Uri): void {
    if (source.scheme === OUTLINED_SCHEME) {
      return;
    }
    const target = outlinedUri(source);
    const key = target.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        if (isOpen(target)) {
          this.changed.fire(target);
        }
      }, this.delayMs()),
    );
  }

  /** Refreshes every open outlined document now, e.g. after the server restarted. */
  refreshAll(): void {
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === OUTLINED_SCHEME) {
        this.changed.fire(document.uri);
      }
    }
  }

  dispose(): void {
    for (const timer of this.timers.values()) {
      clearTimeout(timer);
    }
    this.timers.clear();
    this.changed.dispose();
  }
}

function isOpen(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return vscode.workspace.textDocuments.some((document) => document.uri.toString() === key);
}

/** Opens the outlined program of `source` beside it, as Python. */
export async function showOutlined(source: vscode.Uri, preserveFocus: boolean): Promise<vscode.TextEditor> {
  let document = await vscode.workspace.openTextDocument(outlinedUri(source));
  if (document.languageId !== 'python') {
    document = await vscode.languages.setTextDocumentLanguage(document, 'python');
  }
  return vscode.window.showTextDocument(document, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus,
    preview: false,
  });
}

/**
 * Client middleware for the server's `window/showDocument`: the lens command
 * `pypto.showOutlinedFunction` is executed by the server, which asks to show the outlined
 * document at the function. Outlined documents open beside their source; others as usual.
 */
export const showOutlinedDocument: ShowDocumentRequest.MiddlewareSignature = async (params, token, next) => {
  const target = vscode.Uri.parse(params.uri, true);
  if (target.scheme !== OUTLINED_SCHEME) {
    return next(params, token);
  }
  const editor = await showOutlined(sourceUri(target), params.takeFocus !== true);
  if (params.selection !== undefined) {
    const { start, end } = params.selection;
    editor.selection = new vscode.Selection(start.line, start.character, end.line, end.character);
    editor.revealRange(editor.selection, vscode.TextEditorRevealType.AtTop);
  }
  return { success: true };
};
