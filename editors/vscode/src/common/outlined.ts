import * as vscode from 'vscode';
import type { ShowDocumentRequest } from 'vscode-languageclient/node';
import { describeError, KeyedDebounce, OnScreenRefresh } from './refresh';

/** Scheme of the read-only documents that show a source file's outlined program. */
export const OUTLINED_SCHEME = 'pypto-outlined';

/**
 * Language of the outlined documents: Python's grammar (`syntaxes/pypto-outlined.tmLanguage.json`
 * includes `source.python`) under an id of its own, so the settings the extension contributes for
 * them (`[pypto-outlined]` in package.json: no ambiguous-character boxes around the `ʹ` that
 * tells a variable's versions apart) leave the user's own Python files as they are.
 */
export const OUTLINED_LANGUAGE = 'pypto-outlined';

/** The server's custom request: params `{uri}` of a source document, result `{text}`. */
export const OUTLINED_REQUEST = 'pypto/outlinedProgram';

export interface OutlinedProgramParams {
  readonly uri: string;
  /** The IR's own names instead of the source's (`pypto.outlinedProgram.rawNames`). */
  readonly rawNames?: boolean;
  /** A position in the source: the answer then says where the function holding it is printed. */
  readonly position?: { readonly line: number; readonly character: number };
}

export interface OutlinedProgram {
  readonly text: string;
  readonly selection?: {
    readonly start: { readonly line: number; readonly character: number };
    readonly end: { readonly line: number; readonly character: number };
  };
}

/** Asks the server for the outlined program of the source document `uri`. */
export type OutlinedProgramFetcher = (
  uri: string,
  token: vscode.CancellationToken,
  position?: vscode.Position,
) => Promise<OutlinedProgram>;

/** What the document's name adds to the source's, so its tab reads `quickstart.py (outlined)`. */
export const TITLE_SUFFIX = ' (outlined)';

export function isOutlinedProgram(value: unknown): value is OutlinedProgram {
  return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)['text'] === 'string';
}

/**
 * The outlined document of `source`: `pypto-outlined:<path of the source> (outlined)`, the form
 * the server uses in the `window/showDocument` requests it sends; the suffix names its tab
 * `quickstart.py (outlined)` instead of repeating the source's title (the extension sets its
 * language, `OUTLINED_LANGUAGE`). A source that is not a file (an
 * untitled buffer) also carries its URI in the query, since its path alone does not name it.
 */
export function outlinedUri(source: vscode.Uri): vscode.Uri {
  const query = source.scheme === 'file' ? '' : source.toString();
  return vscode.Uri.from({ scheme: OUTLINED_SCHEME, path: source.path + TITLE_SUFFIX, query });
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
  const path = outlined.path.endsWith(TITLE_SUFFIX) ? outlined.path.slice(0, -TITLE_SUFFIX.length) : outlined.path;
  return path.startsWith('/') ? vscode.Uri.file(path) : vscode.Uri.from({ scheme: 'untitled', path });
}

/**
 * The documents of `schemes` (the outlined program's, the pass trace's stages) are in
 * `OUTLINED_LANGUAGE`, however they were opened: by this extension, by VS Code's diff editor (a
 * stage's name ends in `.py`, which makes it Python), or by VS Code restoring one after a window
 * reload.
 */
export function keepOutlinedLanguage(schemes: readonly string[]): vscode.Disposable {
  const fix = (document: vscode.TextDocument): void => {
    if (schemes.includes(document.uri.scheme) && document.languageId !== OUTLINED_LANGUAGE) {
      void vscode.languages.setTextDocumentLanguage(document, OUTLINED_LANGUAGE);
    }
  };
  vscode.workspace.textDocuments.forEach(fix);
  return vscode.workspace.onDidOpenTextDocument(fix);
}

/**
 * Serves outlined documents from the server and keeps open ones in step with their source:
 * an edit schedules one refresh per source, `delayMs` after the last keystroke.
 */
export class OutlinedProgramProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly refreshes: KeyedDebounce;
  private readonly onScreen = new OnScreenRefresh((uri) => this.changed.fire(uri));

  constructor(
    private readonly fetch: OutlinedProgramFetcher,
    delayMs: () => number,
  ) {
    this.refreshes = new KeyedDebounce(delayMs);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const source = sourceUri(uri);
    try {
      const { text } = await this.fetch(source.toString(), token);
      // the server answers with a comment whenever it knows the document; empty means it does not
      return text.trim() === ''
        ? `# ${source.toString()} is not analysed by the language server: there is nothing to show.\n`
        : text;
    } catch (error) {
      return `# The outlined program of ${source.toString()} is not available: ${describeError(error)}\n`;
    }
  }

  /** Schedules a refresh of the outlined view of `source`, if one is open (`OnScreenRefresh`). */
  sourceChanged(source: vscode.Uri): void {
    if (source.scheme === OUTLINED_SCHEME) {
      return;
    }
    const target = outlinedUri(source);
    this.refreshes.schedule(target.toString(), () => {
      if (isOpen(target)) {
        this.onScreen.refresh(target);
      }
    });
  }

  /** Refreshes every open outlined document now, e.g. after the server restarted. */
  refreshAll(): void {
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === OUTLINED_SCHEME) {
        this.onScreen.refresh(document.uri);
      }
    }
  }

  dispose(): void {
    this.refreshes.dispose();
    this.onScreen.dispose();
    this.changed.dispose();
  }
}

function isOpen(uri: vscode.Uri): boolean {
  const key = uri.toString();
  return vscode.workspace.textDocuments.some((document) => document.uri.toString() === key);
}

/** Opens the outlined program of `source` beside it, in its language, revealing `at` when given. */
export async function showOutlined(
  source: vscode.Uri,
  preserveFocus: boolean,
  at?: OutlinedProgram['selection'],
): Promise<vscode.TextEditor> {
  let document = await vscode.workspace.openTextDocument(outlinedUri(source));
  if (document.languageId !== OUTLINED_LANGUAGE) {
    document = await vscode.languages.setTextDocumentLanguage(document, OUTLINED_LANGUAGE);
  }
  // the selection goes with the open request: set afterwards, VS Code's restored view state of a
  // document opened before could win over it
  const selection =
    at === undefined
      ? undefined
      : new vscode.Selection(at.start.line, at.start.character, at.end.line, at.end.character);
  const editor = await vscode.window.showTextDocument(document, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus,
    preview: false,
    ...(selection === undefined ? {} : { selection }),
  });
  if (selection !== undefined) {
    editor.selection = selection;
    editor.revealRange(selection, vscode.TextEditorRevealType.AtTop);
  }
  return editor;
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
  await showOutlined(sourceUri(target), params.takeFocus !== true, params.selection);
  return { success: true };
};

const OPEN_KEY = 'pypto.openOutlinedPrograms';

/**
 * Brings back the outlined programs that were open when the window was reloaded. VS Code
 * restores editors before the extension is active, and an editor of a scheme nobody serves yet
 * is dropped, which left its editor group empty. The sources of the open outlined documents are
 * kept in the workspace state; on activation each one that is not open again is reopened in an
 * empty editor group (where it was), or beside its source.
 */
export function restoreOutlinedPrograms(state: vscode.Memento): vscode.Disposable {
  const open = (): string[] =>
    vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .map((tab) => (tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined))
      .filter((uri): uri is vscode.Uri => uri !== undefined && uri.scheme === OUTLINED_SCHEME)
      .map((uri) => sourceUri(uri).toString());
  const remembered = state.get<string[]>(OPEN_KEY, []);
  const showing = new Set(open());
  for (const source of remembered.filter((uri) => !showing.has(uri))) {
    const empty = vscode.window.tabGroups.all.find((group) => group.tabs.length === 0);
    void vscode.workspace.openTextDocument(outlinedUri(vscode.Uri.parse(source, true))).then((document) =>
      vscode.window.showTextDocument(document, {
        viewColumn: empty?.viewColumn ?? vscode.ViewColumn.Beside,
        preserveFocus: true,
        preview: false,
      }),
    );
  }
  return vscode.window.tabGroups.onDidChangeTabs(() => void state.update(OPEN_KEY, [...new Set(open())]));
}
