import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as vscode from 'vscode';
import { activate, deactivate } from '../src/extension';
import { clients } from './fake-languageclient';
import { commands, resetVscodeMock, TabInputText, userSettings, window, workspace } from './vscode.mock';

vi.mock('vscode-languageclient/node', () => import('./fake-languageclient'));

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  activationEvents: string[];
  contributes: {
    commands: { command: string }[];
    menus: Record<string, { command: string; when: string }[]>;
    languages: { id: string; configuration: string }[];
    grammars: { language: string; scopeName: string; path: string }[];
    configurationDefaults: Record<string, Record<string, unknown>>;
  };
};

/** Node itself is an executable that exists everywhere these tests run. */
const SERVER_COMMAND = [process.execPath, 'fake-server.js'];

function registeredCommand(id: string): (...args: unknown[]) => unknown {
  const call = commands.registerCommand.mock.calls.find(([name]) => name === id);
  if (call === undefined) {
    throw new Error(`${id} was not registered`);
  }
  return call[1];
}

const remembered = new Map<string, unknown>();
const memento = {
  get: <T>(key: string, fallback: T): T => (remembered.has(key) ? (remembered.get(key) as T) : fallback),
  update: vi.fn(async (key: string, value: unknown) => {
    remembered.set(key, value);
  }),
};

async function activated(): Promise<vscode.ExtensionContext> {
  const context = {
    subscriptions: [] as vscode.Disposable[],
    workspaceState: memento,
    extensionUri: vscode.Uri.file('/extensions/pypto'),
  } as unknown as vscode.ExtensionContext;
  await activate(context);
  return context;
}

beforeEach(async () => {
  await deactivate();
  resetVscodeMock();
  remembered.clear();
  clients.length = 0;
  userSettings.set('pypto.server.command', SERVER_COMMAND);
});

describe('activate', () => {
  it('starts the server and registers every command the manifest contributes, except the server-side one', async () => {
    await activated();
    expect(clients[0]?.commandLine).toEqual(SERVER_COMMAND);
    expect(clients[0]?.isRunning()).toBe(true);

    const registered = commands.registerCommand.mock.calls.map(([id]) => id).sort();
    const contributed = manifest.contributes.commands.map(({ command }) => command);
    expect(registered).toEqual(contributed.filter((id) => id !== 'pypto.showOutlinedFunction').sort());
    expect(workspace.registerTextDocumentContentProvider).toHaveBeenCalledWith('pypto-outlined', expect.anything());
  });

  it('restarts the server when the server command setting changes, and only then', async () => {
    await activated();
    const onChange = workspace.onDidChangeConfiguration.mock.calls[0]?.[0] as (
      event: vscode.ConfigurationChangeEvent,
    ) => void;
    onChange({ affectsConfiguration: (section) => section === 'pypto.codeLens.enable' });
    userSettings.set('pypto.server.command', [process.execPath, 'other-server.js']);
    onChange({ affectsConfiguration: (section) => section === 'pypto.server.command' });
    await vi.waitFor(() => expect(clients[1]?.isRunning()).toBe(true));
    expect(clients).toHaveLength(2);
    expect(clients[0]?.isRunning()).toBe(false);
    expect(clients[1]?.commandLine).toEqual([process.execPath, 'other-server.js']);
  });

  it('opens the outlined program of the active Python file beside it, keeping the focus there', async () => {
    await activated();
    const source = vscode.Uri.file('/work/examples/quickstart.py');
    window.activeTextEditor = {
      document: { uri: source, languageId: 'python', getText: () => '' },
      selection: new vscode.Selection(0, 0, 0, 0),
      revealRange: vi.fn(),
    };
    await registeredCommand('pypto.showOutlinedProgram')();
    expect(workspace.openTextDocument.mock.calls[0]?.[0].toString()).toBe(
      'pypto-outlined:/work/examples/quickstart.py%20%28outlined%29',
    );
    expect(window.showTextDocument.mock.calls[0]?.[1]).toMatchObject({
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
    });
  });

  it('opens the outlined program at the function under the cursor', async () => {
    await activated();
    const source = vscode.Uri.file('/work/examples/quickstart.py');
    window.activeTextEditor = {
      document: { uri: source, languageId: 'python', getText: () => '' },
      selection: new vscode.Selection(21, 4, 21, 4),
      revealRange: vi.fn(),
    };
    const selection = { start: { line: 9, character: 8 }, end: { line: 9, character: 21 } };
    clients[0]?.sendRequest.mockResolvedValueOnce({ text: 'def main_incore_0(', selection });
    await registeredCommand('pypto.showOutlinedProgram')();
    expect(clients[0]?.sendRequest).toHaveBeenCalledWith(
      'pypto/outlinedProgram',
      { uri: source.toString(), rawNames: false, position: { line: 21, character: 4 } },
      expect.anything(),
    );
    const editor = await window.showTextDocument.mock.results[0]?.value;
    expect(editor.selection).toEqual(new vscode.Selection(9, 8, 9, 21));
    expect(editor.revealRange).toHaveBeenCalledWith(editor.selection, vscode.TextEditorRevealType.AtTop);
  });

  it('shows the title-bar button only on DSL files, which it tracks as they open and change', async () => {
    const title = manifest.contributes.menus['editor/title']?.find((m) => m.command === 'pypto.showOutlinedProgram');
    expect(title?.when).toContain('resourcePath in pypto.dslPaths');
    const kernel = {
      uri: vscode.Uri.file('/w/k.py'),
      languageId: 'python',
      getText: () => 'import pypto.language as pl\n',
    };
    const script = { uri: vscode.Uri.file('/w/setup.py'), languageId: 'python', getText: () => 'import os\n' };
    workspace.textDocuments = [kernel, script];
    await activated();
    expect(commands.executeCommand).toHaveBeenCalledWith('setContext', 'pypto.dslPaths', ['/w/k.py']);
    const edited = { ...script, getText: () => 'from pypto import language as pl\n' };
    for (const [listener] of workspace.onDidChangeTextDocument.mock.calls) {
      (listener as (event: unknown) => void)({ document: edited });
    }
    expect(commands.executeCommand).toHaveBeenLastCalledWith('setContext', 'pypto.dslPaths', [
      '/w/k.py',
      '/w/setup.py',
    ]);
  });

  it('gives outlined documents a language of their own: Python highlighting, no ambiguous-character boxes', () => {
    const language = manifest.contributes.languages.find((l) => l.id === 'pypto-outlined');
    const grammar = manifest.contributes.grammars.find((g) => g.language === 'pypto-outlined');
    expect(language).toBeDefined();
    expect(grammar).toBeDefined();
    const read = (path: string): unknown => JSON.parse(readFileSync(new URL(`../${path}`, import.meta.url), 'utf8'));
    expect(read(grammar?.path ?? '')).toMatchObject({
      scopeName: grammar?.scopeName,
      patterns: [{ include: 'source.python' }],
    });
    expect(read(language?.configuration ?? '')).toMatchObject({ comments: { lineComment: '#' } });
    // only the outlined language: the user's own Python files keep VS Code's defaults
    expect(manifest.contributes.configurationDefaults).toEqual({
      '[pypto-outlined]': { 'editor.unicodeHighlight.ambiguousCharacters': false },
    });
  });

  it('activates for an outlined document VS Code restores after a reload, and puts it in the outlined language', async () => {
    expect(manifest.activationEvents).toContain('onFileSystem:pypto-outlined');
    const restored = {
      uri: vscode.Uri.parse('pypto-outlined:/w/k.py%20%28outlined%29'),
      languageId: 'plaintext',
      getText: () => '',
    };
    workspace.textDocuments = [restored];
    await activated();
    expect(vscode.languages.setTextDocumentLanguage).toHaveBeenCalledWith(restored, 'pypto-outlined');
  });

  it('reopens, in the empty group a window reload left, the outlined program that was open', async () => {
    const source = vscode.Uri.file('/w/k.py');
    const outlined = vscode.Uri.parse('pypto-outlined:/w/k.py%20%28outlined%29');
    await activated();
    window.tabGroups.all = [{ viewColumn: 1, tabs: [{ input: new TabInputText(source) }] }];
    window.tabGroups.all.push({ viewColumn: 2, tabs: [{ input: new TabInputText(outlined) }] });
    for (const [listener] of window.tabGroups.onDidChangeTabs.mock.calls) {
      listener({ opened: [], closed: [], changed: [] }); // remembered as the user works
    }
    expect(remembered.get('pypto.openOutlinedPrograms')).toEqual([source.toString()]);

    await deactivate();
    window.tabGroups.all = [
      { viewColumn: 1, tabs: [{ input: new TabInputText(source) }] },
      { viewColumn: 2, tabs: [] }, // what VS Code restores: the editor dropped, its group kept
    ];
    workspace.openTextDocument.mockClear();
    await activated();
    await vi.waitFor(() => expect(window.showTextDocument).toHaveBeenCalled());
    expect(workspace.openTextDocument.mock.calls[0]?.[0].toString()).toBe(outlined.toString());
    expect(window.showTextDocument.mock.calls[0]?.[1]).toMatchObject({ viewColumn: 2, preserveFocus: true });
  });

  it('tells the server of a pypto setting change, and refreshes the outlined program for rawNames', async () => {
    await activated();
    const onChange = workspace.onDidChangeConfiguration.mock.calls[0]?.[0] as (
      event: vscode.ConfigurationChangeEvent,
    ) => void;
    onChange({ affectsConfiguration: (section) => ['pypto', 'pypto.outlinedProgram.rawNames'].includes(section) });
    expect(clients[0]?.sendNotification).toHaveBeenCalledTimes(1);
    onChange({ affectsConfiguration: (section) => section === 'editor.fontSize' });
    expect(clients[0]?.sendNotification).toHaveBeenCalledTimes(1);
  });

  it('treats an outlined document as standing for its source', async () => {
    await activated();
    const outlined = vscode.Uri.parse('pypto-outlined:/work/examples/quickstart.py%20%28outlined%29');
    await registeredCommand('pypto.showOutlinedProgram')(outlined);
    expect(workspace.openTextDocument.mock.calls[0]?.[0].toString()).toBe(outlined.toString());
  });

  it('explains instead of opening anything when no editor is active', async () => {
    await activated();
    await registeredCommand('pypto.showOutlinedProgram')();
    expect(workspace.openTextDocument).not.toHaveBeenCalled();
    expect(window.showInformationMessage).toHaveBeenCalledWith('PyPTO: open a Python file with a PyPTO program first.');
  });

  it('stops the server on deactivate', async () => {
    await activated();
    await deactivate();
    expect(clients[0]?.isRunning()).toBe(false);
  });
});
