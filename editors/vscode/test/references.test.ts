import { describe, expect, it } from 'vitest';
import * as vscode from 'vscode';
import { callersLens, SHOW_REFERENCES, showReferencesArguments } from '../src/common/references';

const lspArguments = [
  'file:///w/norms.py',
  { line: 4, character: 4 },
  [
    { uri: 'file:///w/decode.py', range: { start: { line: 8, character: 10 }, end: { line: 8, character: 14 } } },
    { uri: 'file:///w/prefill.py', range: { start: { line: 6, character: 17 }, end: { line: 6, character: 20 } } },
  ],
];

describe('showReferencesArguments', () => {
  it("turns the server's LSP JSON into VS Code's Uri, Position and Locations", () => {
    const [uri, at, locations] = showReferencesArguments(lspArguments) as [
      vscode.Uri,
      vscode.Position,
      vscode.Location[],
    ];
    expect(uri.toString()).toBe('file:///w/norms.py');
    expect([at.line, at.character]).toEqual([4, 4]);
    expect(
      locations.map((l) => [l.uri.path, l.range.start.line, l.range.start.character, l.range.end.character]),
    ).toEqual([
      ['/w/decode.py', 8, 10, 14],
      ['/w/prefill.py', 6, 17, 20],
    ]);
  });

  it('leaves arguments of another shape alone', () => {
    expect(showReferencesArguments(['file:///w/a.py', { line: 1 }, []])).toBeUndefined();
    expect(showReferencesArguments(undefined)).toBeUndefined();
  });
});

describe('callersLens middleware', () => {
  it("converts a resolved callers lens's arguments and passes other lenses through", async () => {
    const range = new vscode.Range(4, 4, 4, 7);
    const callers = {
      range,
      command: { title: 'called from decode.py', command: SHOW_REFERENCES, arguments: lspArguments },
    };
    const scope = {
      range,
      command: { title: '⇢ main_incore_0', command: 'pypto.showOutlinedFunction', arguments: ['x', 'y'] },
    };
    const token = new vscode.CancellationTokenSource().token;
    const resolve = callersLens.resolveCodeLens;
    if (resolve === undefined) throw new Error('no resolveCodeLens middleware');
    const resolved = await resolve(callers as vscode.CodeLens, token, async (lens) => lens);
    expect(resolved?.command?.arguments?.[2][0]).toBeInstanceOf(vscode.Location);
    const untouched = await resolve(scope as vscode.CodeLens, token, async (lens) => lens);
    expect(untouched?.command?.arguments).toEqual(['x', 'y']);
  });
});
