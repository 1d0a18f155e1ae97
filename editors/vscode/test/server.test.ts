import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';
import type { Probes } from '../src/common/resolve';
import type { PythonInterpreters } from '../src/common/python';
import { LanguageServer, toastText } from '../src/common/server';
import { ServerStatus } from '../src/common/status';
import { clients, failStartsWith } from './fake-languageclient';
import { commands, env, logChannel, resetVscodeMock, userSettings, window, workspace } from './vscode.mock';

vi.mock('vscode-languageclient/node', () => import('./fake-languageclient'));

/** python3 on PATH without the server, and pypto-lsp on PATH. */
const installed: Probes = {
  findExecutable: async (name) => ({ 'pypto-lsp': '/usr/bin/pypto-lsp', python3: '/usr/bin/python3' })[name],
  inspectPython: async () => ({ version: [3, 11, 7], hasServer: false }),
};
const nothingInstalled: Probes = {
  findExecutable: async () => undefined,
  inspectPython: async (python) => `${python} does not exist`,
};
const noPythonExtension = { active: async () => undefined } as unknown as PythonInterpreters;
const token = { isCancellationRequested: false } as vscode.CancellationToken;

function makeServer(probes: Probes, bundledLauncher?: string) {
  const status = new ServerStatus();
  const log = logChannel();
  const onReady = vi.fn();
  const server = new LanguageServer({
    log: log as unknown as vscode.LogOutputChannel,
    status,
    interpreters: noPythonExtension,
    probes,
    bundledLauncher,
    pythonNames: ['python3'],
    onReady,
    serverCwd: '/extensions/pypto',
  });
  return { server, status, log, onReady };
}

beforeEach(() => {
  resetVscodeMock();
  clients.length = 0;
  failStartsWith(undefined);
});

describe('LanguageServer', () => {
  it('starts exactly the resolved command (no --stdio added) for Python files, with the pypto options', async () => {
    userSettings.set('pypto.inlayHints.enable', false);
    const { server, status, onReady } = makeServer(installed);
    await server.start();

    const client = clients[0];
    expect(client?.commandLine).toEqual(['/usr/bin/pypto-lsp']);
    expect(client?.serverOptions.transport).toBeUndefined();
    expect(client?.serverOptions.options?.cwd).toBe('/extensions/pypto');
    expect(client?.clientOptions).toMatchObject({
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
        { scheme: 'pypto-outlined', language: 'pypto-outlined' },
      ],
      initializationOptions: {
        pypto: {
          diagnostics: { enable: true },
          inlayHints: { enable: false },
          analysis: { debounceMs: 50 },
          outlinedProgram: { rawNames: false },
        },
      },
    });
    // the client must not send didChangeConfiguration itself: to a server that failed to start,
    // that is a second toast with a stack trace
    expect(client?.clientOptions['synchronize']).toBeUndefined();
    expect(status.state).toBe('ready');
    expect(status.detail).toBe('pypto-lsp on PATH');
    expect(onReady).toHaveBeenCalledTimes(1);
  });

  it('waits for diagnostics after an edit only where the server publishes them', async () => {
    const { server, status } = makeServer(installed);
    await server.start();
    const middleware = clients[0]?.clientOptions['middleware'] as Middleware;
    const kernel = {
      uri: vscode.Uri.file('/w/k.py'),
      languageId: 'python',
      getText: () => 'import pypto.language as pl\n',
    };
    workspace.textDocuments = [kernel];
    const edit = { document: kernel, contentChanges: [] } as unknown as vscode.TextDocumentChangeEvent;
    await middleware.didChange?.(edit, async () => undefined);
    expect(status.state).toBe('analysing');
    middleware.handleDiagnostics?.(vscode.Uri.file('/w/k.py'), [], () => undefined);
    const outlined = { uri: vscode.Uri.parse('pypto-outlined:/w/k.py%20(outlined)') } as vscode.TextDocument;
    await middleware.didOpen?.(outlined, async () => undefined);
    expect(status.state).toBe('ready');
    userSettings.set('pypto.diagnostics.enable', false);
    await middleware.didChange?.(edit, async () => undefined);
    expect(status.state).toBe('ready');
  });

  it('never shows "analysing" for a Python file that is not DSL code', async () => {
    const { server, status } = makeServer(installed);
    await server.start();
    const middleware = clients[0]?.clientOptions['middleware'] as Middleware;
    const script = { uri: vscode.Uri.file('/w/setup.py'), languageId: 'python', getText: () => 'import os\n' };
    workspace.textDocuments = [script];
    await middleware.didChange?.(
      { document: script, contentChanges: [] } as unknown as vscode.TextDocumentChangeEvent,
      async () => undefined,
    );
    expect(status.state).toBe('ready');
  });

  it('tells a running server of setting changes, and a stopped or failed one nothing', async () => {
    const { server } = makeServer(installed);
    server.configurationChanged(); // not started: nothing to tell, nothing thrown
    await server.start();
    server.configurationChanged();
    expect(clients[0]?.sendNotification).toHaveBeenCalledWith(expect.anything(), { settings: null });
    await server.stop();
    server.configurationChanged();
    expect(clients[0]?.sendNotification).toHaveBeenCalledTimes(1);
  });

  it('runs the bundled server with python3 from PATH when the build has it', async () => {
    const { server, status } = makeServer(installed, '/extensions/pypto/bundled/tool/launch.py');
    await server.start();
    expect(clients[0]?.commandLine).toEqual(['/usr/bin/python3', '/extensions/pypto/bundled/tool/launch.py']);
    expect(status.detail).toBe('the bundled server, run by /usr/bin/python3');
  });

  it('without a Python says what was tried and what to do, with a button that opens the server settings', async () => {
    window.showErrorMessage.mockResolvedValueOnce('Open Settings');
    userSettings.set('pypto.server.pythonPath', '/nowhere/python');
    const { server, status, log } = makeServer(nothingInstalled, '/extensions/pypto/bundled/tool/launch.py');
    await server.start();

    expect(clients).toHaveLength(0);
    expect(status.state).toBe('failed');
    expect(status.detail).toBe('no Python 3.10 or newer found');
    const [message, ...buttons] = window.showErrorMessage.mock.calls[0] ?? [];
    expect(message).toContain('no Python 3.10 or newer was found');
    expect(message).toContain('/nowhere/python does not exist');
    expect(message).toContain('python3 on PATH: not found');
    expect(message).not.toContain('pip install pypto-lsp');
    expect(buttons).toEqual(['Open Settings', 'Show Logs']);
    expect(message).not.toContain('`'); // a toast renders no Markdown
    expect(log.warn).toHaveBeenCalledWith('Not using setting pypto.server.pythonPath: /nowhere/python does not exist');
    await vi.waitFor(() =>
      expect(commands.executeCommand).toHaveBeenCalledWith('workbench.action.openSettings', { query: 'pypto.server' }),
    );
  });

  it('in a remote window, Open Settings opens the Remote tab, where machine settings take effect', async () => {
    env.remoteName = 'ssh-remote';
    window.showErrorMessage.mockResolvedValueOnce('Open Settings');
    const { server } = makeServer(nothingInstalled);
    await server.start();
    await vi.waitFor(() =>
      expect(commands.executeCommand).toHaveBeenCalledWith('workbench.action.openRemoteSettings', {
        query: 'pypto.server',
      }),
    );
    expect(commands.executeCommand).not.toHaveBeenCalledWith('workbench.action.openSettings', expect.anything());
  });

  it('reports a server that cannot start as failed', async () => {
    failStartsWith(new Error('spawn /usr/bin/pypto-lsp EACCES'));
    const { server, status } = makeServer(installed);
    await server.start();
    expect(status.state).toBe('failed');
    expect(window.showErrorMessage.mock.calls[0]?.[0]).toContain('spawn /usr/bin/pypto-lsp EACCES');
    await expect(server.outlinedProgram('file:///a.py', token)).rejects.toThrow('not running');
  });

  it('marks a server that dies on its own as failed, but not one it stops itself', async () => {
    const { server, status } = makeServer(installed);
    await server.start();
    clients[0]?.crash();
    expect(status.state).toBe('failed');

    await server.restart();
    await server.stop();
    expect(status.state).toBe('stopped');
  });

  it('restarts one server at a time, disposing the old client first', async () => {
    const { server, status } = makeServer(installed);
    await server.start();
    await Promise.all([server.restart(), server.restart()]);
    expect(clients).toHaveLength(3);
    expect(clients.map((client) => client.isRunning())).toEqual([false, false, true]);
    expect(status.state).toBe('ready');
  });

  it('asks the running server for the outlined program and checks the answer', async () => {
    const { server } = makeServer(installed);
    await server.start();
    const client = clients[0];
    expect(await server.outlinedProgram('file:///a.py', token)).toEqual({ text: 'def main_incore_0(' });
    expect(client?.sendRequest).toHaveBeenCalledWith(
      'pypto/outlinedProgram',
      { uri: 'file:///a.py', rawNames: false },
      token,
    );
    userSettings.set('pypto.outlinedProgram.rawNames', true);
    await server.outlinedProgram('file:///a.py', token, new vscode.Position(4, 2));
    expect(client?.sendRequest).toHaveBeenLastCalledWith(
      'pypto/outlinedProgram',
      { uri: 'file:///a.py', rawNames: true, position: { line: 4, character: 2 } },
      token,
    );

    client?.sendRequest.mockResolvedValueOnce({ lines: [] });
    await expect(server.outlinedProgram('file:///a.py', token)).rejects.toThrow('without a text field');
  });
});

describe('toastText', () => {
  it('quotes code spans and keeps only the first line (a trace belongs in the log)', () => {
    expect(toastText('install `pypto-lsp` first\nError: x\n    at Zh.$start (ext.js:1:2)')).toBe(
      "install 'pypto-lsp' first",
    );
  });
});
