import { beforeEach, describe, expect, it } from 'vitest';
import { homedir } from 'node:os';
import * as vscode from 'vscode';
import {
  affectsDiagnostics,
  affectsServerStart,
  readServerOptions,
  readServerStartSettings,
} from '../src/common/settings';
import { resetVscodeMock, userSettings } from './vscode.mock';

beforeEach(resetVscodeMock);

function changeOf(...changed: string[]): vscode.ConfigurationChangeEvent {
  return {
    affectsConfiguration: (section: string) => changed.some((key) => key === section || key.startsWith(`${section}.`)),
  };
}

describe('settings', () => {
  it('reads the manifest defaults when nothing is set', () => {
    expect(readServerStartSettings()).toEqual({ command: [], pythonPath: '', importStrategy: 'useBundled' });
    expect(readServerOptions()).toEqual({
      diagnostics: { enable: true, docsUrl: 'https://github.com/pypto/pypto-lsp/blob/main/docs/diagnostics.md' },
      codeLens: { enable: true, passTrace: true },
      inlayHints: { enable: true },
      semanticTokens: { enable: false },
      analysis: { debounceMs: 50, extraPaths: [], spliceBudget: 20000 },
      outlinedProgram: { rawNames: false },
    });
  });

  it('reads what the user set, in the shape the server expects', () => {
    userSettings.set('pypto.codeLens.enable', false);
    userSettings.set('pypto.analysis.debounceMs', 300);
    userSettings.set('pypto.analysis.extraPaths', ['../shared']);
    userSettings.set('pypto.analysis.spliceBudget', 5000);
    userSettings.set('pypto.server.command', ['/opt/pypto-lsp', '--log-level', 'debug']);
    expect(readServerOptions()).toMatchObject({
      codeLens: { enable: false },
      analysis: { debounceMs: 300, extraPaths: ['../shared'], spliceBudget: 5000 },
    });
    expect(readServerStartSettings().command).toEqual(['/opt/pypto-lsp', '--log-level', 'debug']);
  });

  it('treats blank values as unset and wrongly typed values as the default', () => {
    userSettings.set('pypto.server.command', ['', '  ']);
    userSettings.set('pypto.server.pythonPath', '   ');
    userSettings.set('pypto.diagnostics.enable', 'no');
    userSettings.set('pypto.analysis.debounceMs', -5);
    userSettings.set('pypto.analysis.spliceBudget', 2.5);
    userSettings.set('pypto.server.importStrategy', 'fromSomewhere');
    expect(readServerStartSettings()).toEqual({ command: [], pythonPath: '', importStrategy: 'useBundled' });
    expect(readServerOptions().diagnostics.enable).toBe(true);
    expect(readServerOptions().analysis.debounceMs).toBe(50);
    expect(readServerOptions().analysis.spliceBudget).toBe(20000);
  });

  it('expands ${workspaceFolder} and ${userHome} in the server command and interpreter', () => {
    userSettings.set('pypto.server.pythonPath', '${workspaceFolder}/.venv/bin/python');
    userSettings.set('pypto.server.command', ['${userHome}/bin/pypto-lsp', '--log-file', '${workspaceFolder}/lsp.log']);
    const folder = vscode.Uri.file('/work/project');
    expect(readServerStartSettings(folder)).toEqual({
      command: [`${homedir()}/bin/pypto-lsp`, '--log-file', '/work/project/lsp.log'],
      pythonPath: '/work/project/.venv/bin/python',
      importStrategy: 'useBundled',
    });
    expect(readServerStartSettings().pythonPath).toBe('${workspaceFolder}/.venv/bin/python');
  });

  it('restarts for the server command, interpreter and import strategy, not for analysis options', () => {
    expect(affectsServerStart(changeOf('pypto.server.command'))).toBe(true);
    expect(affectsServerStart(changeOf('pypto.server.pythonPath'))).toBe(true);
    expect(affectsServerStart(changeOf('pypto.server.importStrategy'))).toBe(true);
    expect(affectsServerStart(changeOf('pypto.codeLens.enable', 'pypto.trace.server'))).toBe(false);
  });

  it('notices diagnostics being turned on or off', () => {
    expect(affectsDiagnostics(changeOf('pypto.diagnostics.enable'))).toBe(true);
    expect(affectsDiagnostics(changeOf('pypto.codeLens.enable'))).toBe(false);
  });
});
