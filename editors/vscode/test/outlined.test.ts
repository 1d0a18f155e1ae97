import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as vscode from 'vscode';
import {
  keepOutlinedLanguage,
  OutlinedProgramProvider,
  outlinedUri,
  showOutlinedDocument,
  sourceUri,
} from '../src/common/outlined';
import { type MockTab, resetVscodeMock, TabInputText, window, workspace } from './vscode.mock';

beforeEach(resetVscodeMock);
afterEach(() => {
  vi.useRealTimers();
});

const token = { isCancellationRequested: false } as vscode.CancellationToken;
const source = vscode.Uri.file('/work/examples/quickstart.py');

describe('outlined document URIs', () => {
  it('name the document "<file> (outlined)", the form the server sends', () => {
    expect(outlinedUri(source).path).toBe('/work/examples/quickstart.py (outlined)'); // the tab's title
    for (const form of [
      'pypto-outlined:/work/examples/quickstart.py%20%28outlined%29',
      'pypto-outlined:/work/examples/quickstart.py%20(outlined)', // the server's spelling
      'pypto-outlined:/work/examples/quickstart.py', // before the suffix
    ]) {
      expect(sourceUri(vscode.Uri.parse(form)).toString()).toBe(source.toString());
    }
  });

  it('map a path with spaces and an untitled buffer back to their source', () => {
    const spaced = vscode.Uri.file('/work/my kernels/a.py');
    const untitled = vscode.Uri.parse('untitled:Untitled-1');
    for (const uri of [spaced, untitled]) {
      const round = sourceUri(vscode.Uri.parse(outlinedUri(uri).toString()));
      expect(round.toString()).toBe(uri.toString());
    }
  });

  it("read the server's form for an untitled buffer", () => {
    expect(sourceUri(vscode.Uri.parse('pypto-outlined:Untitled-1')).toString()).toBe('untitled:Untitled-1');
  });
});

describe('OutlinedProgramProvider', () => {
  it("serves the server's text for the source document", async () => {
    const fetch = vi.fn(async () => ({ text: 'class Quickstart:\n    def main_incore_0(self): ...\n' }));
    const provider = new OutlinedProgramProvider(fetch, () => 50);
    const text = await provider.provideTextDocumentContent(outlinedUri(source), token);
    expect(fetch).toHaveBeenCalledWith(source.toString(), token);
    expect(text).toContain('def main_incore_0');
  });

  it('says the server does not know the source, instead of showing an empty document', async () => {
    const provider = new OutlinedProgramProvider(
      async () => ({ text: '' }),
      () => 50,
    );
    const text = await provider.provideTextDocumentContent(outlinedUri(source), token);
    expect(text).toBe(
      '# file:///work/examples/quickstart.py is not analysed by the language server: there is nothing to show.\n',
    );
  });

  it('shows why there is no text instead of failing to open the document', async () => {
    const provider = new OutlinedProgramProvider(
      async () => {
        throw new Error('the PyPTO language server is not running');
      },
      () => 50,
    );
    const text = await provider.provideTextDocumentContent(outlinedUri(source), token);
    expect(text).toMatch(
      /^# The outlined program of file:\/\/\/work\/examples\/quickstart\.py is not available: the PyPTO language server is not running/,
    );
  });

  it('refreshes an open outlined document once, after a burst of edits has settled', () => {
    vi.useFakeTimers();
    const provider = new OutlinedProgramProvider(
      async () => ({ text: '' }),
      () => 50,
    );
    const fired: string[] = [];
    provider.onDidChange((uri) => fired.push(uri.toString()));
    workspace.textDocuments = [{ uri: outlinedUri(source), languageId: 'pypto-outlined', getText: () => '' }];
    window.tabGroups.all = [
      { viewColumn: 2, tabs: [{ input: new TabInputText(outlinedUri(source)), isActive: true }] },
    ];

    provider.sourceChanged(source);
    vi.advanceTimersByTime(40);
    provider.sourceChanged(source);
    vi.advanceTimersByTime(40);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(fired).toEqual(['pypto-outlined:/work/examples/quickstart.py%20%28outlined%29']);
  });

  it('does not refresh when no outlined document of that source is open', () => {
    vi.useFakeTimers();
    const provider = new OutlinedProgramProvider(
      async () => ({ text: '' }),
      () => 50,
    );
    const fired = vi.fn();
    provider.onDidChange(fired);
    provider.sourceChanged(source);
    provider.sourceChanged(outlinedUri(source));
    vi.runAllTimers();
    expect(fired).not.toHaveBeenCalled();
  });

  it('holds back the refresh of an outlined document no tab shows until one does', () => {
    vi.useFakeTimers();
    const provider = new OutlinedProgramProvider(
      async () => ({ text: '' }),
      () => 50,
    );
    const listening = vi.mocked(window.tabGroups.onDidChangeTabs).mock.lastCall;
    if (listening === undefined) {
      throw new Error('the provider does not listen to tab changes');
    }
    const [tabsChanged] = listening;
    const fired: string[] = [];
    provider.onDidChange((uri) => fired.push(uri.toString()));
    // its tab was closed, or sits behind another: VS Code keeps the document for a while
    workspace.textDocuments = [{ uri: outlinedUri(source), languageId: 'pypto-outlined', getText: () => '' }];
    const behind: MockTab = { input: new TabInputText(outlinedUri(source)), isActive: false };
    window.tabGroups.all = [{ viewColumn: 2, tabs: [behind, { input: new TabInputText(source), isActive: true }] }];
    provider.sourceChanged(source);
    vi.advanceTimersByTime(50);
    provider.sourceChanged(source);
    vi.advanceTimersByTime(50);
    expect(fired).toEqual([]);

    tabsChanged({ opened: [], closed: [], changed: [{ input: new TabInputText(source), isActive: false }] });
    expect(fired).toEqual([]);
    behind.isActive = true;
    tabsChanged({ opened: [], closed: [], changed: [behind] });
    tabsChanged({ opened: [], closed: [], changed: [behind] });
    expect(fired).toEqual(['pypto-outlined:/work/examples/quickstart.py%20%28outlined%29']);
  });

  it('refreshes every open outlined document at once after a restart', () => {
    const provider = new OutlinedProgramProvider(
      async () => ({ text: '' }),
      () => 50,
    );
    const fired: string[] = [];
    provider.onDidChange((uri) => fired.push(uri.toString()));
    workspace.textDocuments = [
      { uri: source, languageId: 'python', getText: () => '' },
      { uri: outlinedUri(source), languageId: 'pypto-outlined', getText: () => '' },
    ];
    window.tabGroups.all = [
      { viewColumn: 2, tabs: [{ input: new TabInputText(outlinedUri(source)), isActive: true }] },
    ];
    provider.refreshAll();
    expect(fired).toEqual(['pypto-outlined:/work/examples/quickstart.py%20%28outlined%29']);
  });
});

describe('window/showDocument middleware', () => {
  it('opens an outlined document beside its source with the selection the server chose', async () => {
    const next = vi.fn();
    const selection = { start: { line: 12, character: 8 }, end: { line: 12, character: 21 } };
    const result = await showOutlinedDocument(
      { uri: 'pypto-outlined:/work/examples/quickstart.py%20%28outlined%29', takeFocus: true, selection },
      token,
      next,
    );
    expect(result).toEqual({ success: true });
    expect(next).not.toHaveBeenCalled();
    expect(workspace.openTextDocument.mock.calls[0]?.[0].toString()).toBe(
      'pypto-outlined:/work/examples/quickstart.py%20%28outlined%29',
    );
    expect(window.showTextDocument.mock.calls[0]?.[1]).toEqual({
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: false,
      preview: false,
      selection: new vscode.Selection(12, 8, 12, 21),
    });
    const editor = await window.showTextDocument.mock.results[0]?.value;
    expect(editor.selection).toEqual(new vscode.Selection(12, 8, 12, 21));
    expect(editor.revealRange).toHaveBeenCalledWith(editor.selection, vscode.TextEditorRevealType.AtTop);
  });

  it('leaves every other document to the default handler', async () => {
    const next = vi.fn(async () => ({ success: true }));
    const params = { uri: source.toString(), takeFocus: true };
    await showOutlinedDocument(params, token, next);
    expect(next).toHaveBeenCalledWith(params, token);
    expect(window.showTextDocument).not.toHaveBeenCalled();
  });
});

describe('keepOutlinedLanguage', () => {
  it('puts an outlined document VS Code restored after a reload in the outlined language again', () => {
    const restored = { uri: outlinedUri(source), languageId: 'plaintext', getText: () => '' };
    const other = { uri: vscode.Uri.file('/w/notes.txt'), languageId: 'plaintext', getText: () => '' };
    workspace.textDocuments = [restored, other];
    keepOutlinedLanguage(['pypto-outlined', 'pypto-trace']);
    expect(vscode.languages.setTextDocumentLanguage).toHaveBeenCalledTimes(1);
    expect(vscode.languages.setTextDocumentLanguage).toHaveBeenCalledWith(restored, 'pypto-outlined');
  });

  it('puts a pass-trace stage the diff editor opens as Python in the outlined language, and no Python file', () => {
    workspace.textDocuments = [];
    keepOutlinedLanguage(['pypto-outlined', 'pypto-trace']);
    const opened = workspace.onDidOpenTextDocument.mock.calls[0]?.[0] as (document: unknown) => void;
    const stage = {
      uri: vscode.Uri.parse('pypto-trace:/w/k.py/P/04_after_OutlineHierarchyScopes.py?file%3A%2F%2F%2Fw%2Fk.py'),
      languageId: 'python',
      getText: () => '',
    };
    const mine = { uri: vscode.Uri.file('/w/k.py'), languageId: 'python', getText: () => '' };
    opened(stage);
    opened(mine);
    expect(vscode.languages.setTextDocumentLanguage).toHaveBeenCalledTimes(1);
    expect(vscode.languages.setTextDocumentLanguage).toHaveBeenCalledWith(stage, 'pypto-outlined');
  });
});
