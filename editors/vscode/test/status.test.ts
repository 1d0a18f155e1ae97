import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as vscode from 'vscode';
import { analysisTracking, lookOf, ServerStatus, showStatusBarItem } from '../src/common/status';
import { resetVscodeMock, window } from './vscode.mock';

beforeEach(resetVscodeMock);

const uri = vscode.Uri.file('/work/kernel.py');
const other = vscode.Uri.file('/work/other.py');
const document = { uri } as vscode.TextDocument;

function readyStatus(): ServerStatus {
  const status = new ServerStatus();
  status.setLifecycle('starting');
  status.setLifecycle('ready', 'pypto-lsp on PATH');
  return status;
}

describe('ServerStatus', () => {
  it('goes from stopped through starting to ready', () => {
    const status = new ServerStatus();
    const seen: string[] = [];
    status.onDidChange((state) => seen.push(state));
    expect(status.state).toBe('stopped');
    status.setLifecycle('starting');
    status.setLifecycle('ready', 'pypto-lsp on PATH');
    expect(seen).toEqual(['starting', 'ready']);
    expect(lookOf(status).tooltip).toContain('pypto-lsp on PATH');
  });

  it('is analysing from a change until diagnostics arrive for every changed document', async () => {
    const status = readyStatus();
    const middleware = analysisTracking(status, () => true);
    const next = vi.fn(async () => undefined);
    await middleware.didChange?.({ document, contentChanges: [], reason: undefined }, next);
    await middleware.didOpen?.({ uri: other } as vscode.TextDocument, next);
    expect(next).toHaveBeenCalledTimes(2);
    expect(status.state).toBe('analysing');
    expect(lookOf(status).tooltip).toContain('analysing 2 document(s)');

    const publish = vi.fn();
    middleware.handleDiagnostics?.(uri, [], publish);
    expect(publish).toHaveBeenCalledWith(uri, []);
    expect(status.state).toBe('analysing');
    middleware.handleDiagnostics?.(other, [], publish);
    expect(status.state).toBe('ready');
  });

  it('stops waiting for a document that is closed before its diagnostics arrive', async () => {
    const status = readyStatus();
    const middleware = analysisTracking(status, () => true);
    await middleware.didChange?.({ document, contentChanges: [], reason: undefined }, async () => undefined);
    await middleware.didClose?.(document, async () => undefined);
    expect(status.state).toBe('ready');
  });

  it('does not wait for documents whose diagnostics are turned off', async () => {
    const status = readyStatus();
    const middleware = analysisTracking(status, (changed) => changed.toString() !== uri.toString());
    await middleware.didChange?.({ document, contentChanges: [], reason: undefined }, async () => undefined);
    expect(status.state).toBe('ready');
    await middleware.didOpen?.({ uri: other } as vscode.TextDocument, async () => undefined);
    expect(status.state).toBe('analysing');
    status.forgetPending();
    expect(status.state).toBe('ready');
  });

  it('does not report analysing while the server is not ready, and a new process forgets old work', () => {
    const status = new ServerStatus();
    status.setLifecycle('starting');
    status.analysisRequested(uri.toString());
    expect(status.state).toBe('starting');
    status.setLifecycle('ready');
    expect(status.state).toBe('ready');
  });

  it('shows a failure in the status bar with an error background and the reason', () => {
    const status = readyStatus();
    showStatusBarItem(status, 'pypto.showLogs');
    const item = window.createStatusBarItem.mock.results[0]?.value;
    expect(item.command).toBe('pypto.showLogs');
    expect(item.show).toHaveBeenCalled();
    expect(item.text).toBe('$(check) PyPTO');
    expect(item.backgroundColor).toBeUndefined();

    status.setLifecycle('failed', 'pypto-lsp is not installed');
    expect(item.text).toBe('$(error) PyPTO');
    expect(item.tooltip).toContain('pypto-lsp is not installed');
    expect(item.backgroundColor).toEqual(new vscode.ThemeColor('statusBarItem.errorBackground'));

    status.setLifecycle('starting');
    expect(item.text).toBe('$(loading~spin) PyPTO');
    expect(item.backgroundColor).toBeUndefined();
  });
});
