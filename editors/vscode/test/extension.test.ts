import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as vscode from 'vscode';
import { activate, deactivate } from '../src/extension';
import { clients } from './fake-languageclient';
import { commands, resetVscodeMock, userSettings, window, workspace } from './vscode.mock';

vi.mock('vscode-languageclient/node', () => import('./fake-languageclient'));

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  contributes: { commands: { command: string }[] };
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

async function activated(): Promise<vscode.ExtensionContext> {
  const context = {
    subscriptions: [] as vscode.Disposable[],
    extensionUri: vscode.Uri.file('/extensions/pypto'),
  } as unknown as vscode.ExtensionContext;
  await activate(context);
  return context;
}

beforeEach(async () => {
  await deactivate();
  resetVscodeMock();
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
      selection: undefined,
      revealRange: vi.fn(),
    };
    await registeredCommand('pypto.showOutlinedProgram')();
    expect(workspace.openTextDocument.mock.calls[0]?.[0].toString()).toBe(
      'pypto-outlined:/work/examples/quickstart.py',
    );
    expect(window.showTextDocument.mock.calls[0]?.[1]).toMatchObject({
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
    });
  });

  it('treats an outlined document as standing for its source', async () => {
    await activated();
    const outlined = vscode.Uri.parse('pypto-outlined:/work/examples/quickstart.py');
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
