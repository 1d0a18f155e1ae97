import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';

/** The command of the server's lens on an inline helper listing its callers. */
export const SHOW_REFERENCES = 'editor.action.showReferences';

interface LspPosition {
  readonly line: number;
  readonly character: number;
}

interface LspLocation {
  readonly uri: string;
  readonly range: { readonly start: LspPosition; readonly end: LspPosition };
}

function isPosition(value: unknown): value is LspPosition {
  const p = value as LspPosition | undefined;
  return typeof p?.line === 'number' && typeof p.character === 'number';
}

function isLocation(value: unknown): value is LspLocation {
  const l = value as Partial<LspLocation> | undefined;
  const range = l?.range;
  return typeof l?.uri === 'string' && range !== undefined && isPosition(range.start) && isPosition(range.end);
}

function position(p: LspPosition): vscode.Position {
  return new vscode.Position(p.line, p.character);
}

/**
 * `editor.action.showReferences` takes VS Code's own types (a Uri, a Position, Locations); the
 * server sends their LSP JSON, which the language client passes through untouched. Returns the
 * converted arguments, or undefined when they are not what the server sends.
 */
export function showReferencesArguments(args: readonly unknown[] | undefined): unknown[] | undefined {
  const [uri, at, locations] = args ?? [];
  if (typeof uri !== 'string' || !isPosition(at) || !Array.isArray(locations) || !locations.every(isLocation)) {
    return undefined;
  }
  return [
    vscode.Uri.parse(uri),
    position(at),
    locations.map(
      (l) =>
        new vscode.Location(vscode.Uri.parse(l.uri), new vscode.Range(position(l.range.start), position(l.range.end))),
    ),
  ];
}

/** Converts a resolved callers lens's arguments, so clicking it opens the references peek. */
export const callersLens: Middleware = {
  resolveCodeLens: async (lens, token, next) => {
    const resolved = await next(lens, token);
    const command = resolved?.command;
    if (command?.command === SHOW_REFERENCES) {
      const converted = showReferencesArguments(command.arguments);
      if (converted !== undefined) {
        command.arguments = converted;
      }
    }
    return resolved;
  },
};
