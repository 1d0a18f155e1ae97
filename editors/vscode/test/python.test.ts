import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as vscode from 'vscode';
import { PythonInterpreters } from '../src/common/python';
import { extensions, logChannel, resetVscodeMock } from './vscode.mock';

beforeEach(resetVscodeMock);

/** The Python extension as `extensions.getExtension` returns it, exporting `api` once activated. */
function pythonExtension(api: unknown) {
  return { isActive: false, exports: undefined, activate: vi.fn(async () => api) };
}

function environments(executable: string | undefined) {
  return {
    getActiveEnvironmentPath: vi.fn((_resource?: vscode.Uri) => ({ path: '/envs/kernels' })),
    resolveEnvironment: vi.fn(async (environment: { path: string }) =>
      environment.path === '/envs/kernels'
        ? { executable: { uri: executable === undefined ? undefined : vscode.Uri.file(executable) } }
        : undefined,
    ),
    onDidChangeActiveEnvironmentPath: vi.fn((_listener: () => void) => new vscode.Disposable(() => undefined)),
  };
}

describe('PythonInterpreters', () => {
  it('has no interpreter, and nothing to listen to, without the Python extension', async () => {
    const interpreters = new PythonInterpreters(logChannel());
    expect(await interpreters.active()).toBeUndefined();
    const listener = vi.fn();
    (await interpreters.onDidChange(listener)).dispose();
    expect(extensions.getExtension).toHaveBeenCalledWith('ms-python.python');
  });

  it("activates the Python extension and resolves its active environment's executable", async () => {
    const api = environments('/envs/kernels/bin/python');
    const extension = pythonExtension({ environments: api });
    extensions.getExtension.mockReturnValue(extension);
    const folder = vscode.Uri.file('/work');
    expect(await new PythonInterpreters(logChannel()).active(folder)).toBe('/envs/kernels/bin/python');
    expect(extension.activate).toHaveBeenCalled();
    expect(api.getActiveEnvironmentPath).toHaveBeenCalledWith(folder);
  });

  it('passes interpreter changes on to the listener', async () => {
    const api = environments('/envs/kernels/bin/python');
    extensions.getExtension.mockReturnValue(pythonExtension({ environments: api }));
    const listener = vi.fn();
    await new PythonInterpreters(logChannel()).onDidChange(listener);
    expect(api.onDidChangeActiveEnvironmentPath).toHaveBeenCalledWith(listener);
  });

  it('ignores an extension without the environments API, or one that fails, and says so', async () => {
    const log = logChannel();
    extensions.getExtension.mockReturnValue(pythonExtension({ settings: {} }));
    expect(await new PythonInterpreters(log).active()).toBeUndefined();
    expect(log.warn).toHaveBeenCalledWith('ms-python.python has no environments API; ignoring its interpreter');

    extensions.getExtension.mockReturnValue({
      isActive: false,
      activate: vi.fn(async () => Promise.reject(new Error('boom'))),
    });
    expect(await new PythonInterpreters(log).active()).toBeUndefined();
    expect(log.warn).toHaveBeenLastCalledWith('ms-python.python failed to activate: Error: boom');
  });

  it('has no interpreter when the active environment has no executable', async () => {
    extensions.getExtension.mockReturnValue(pythonExtension({ environments: environments(undefined) }));
    expect(await new PythonInterpreters(logChannel()).active()).toBeUndefined();
  });
});
