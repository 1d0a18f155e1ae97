import * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';

/** Where the server process is in its life. */
export type Lifecycle = 'stopped' | 'starting' | 'ready' | 'failed';

/** What the status bar shows: the lifecycle, or `analysing` while a ready server owes diagnostics. */
export type StatusState = Lifecycle | 'analysing';

/**
 * The server state as the user sees it. A document counts as being analysed from the moment
 * its text is sent (didOpen/didChange) until diagnostics for it arrive, or it is closed.
 */
export class ServerStatus implements vscode.Disposable {
  private lifecycle: Lifecycle = 'stopped';
  private reason = '';
  private readonly pending = new Set<string>();
  private readonly changed = new vscode.EventEmitter<StatusState>();
  readonly onDidChange = this.changed.event;

  get state(): StatusState {
    return this.lifecycle === 'ready' && this.pending.size > 0 ? 'analysing' : this.lifecycle;
  }

  /** Why the server is not running, or which command it runs. */
  get detail(): string {
    return this.reason;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** A new lifecycle also forgets pending documents: a new process re-analyses what is open. */
  setLifecycle(lifecycle: Lifecycle, detail = ''): void {
    this.lifecycle = lifecycle;
    this.reason = detail;
    this.pending.clear();
    this.changed.fire(this.state);
  }

  analysisRequested(uri: string): void {
    this.update(() => this.pending.add(uri));
  }

  analysisSettled(uri: string): void {
    this.update(() => this.pending.delete(uri));
  }

  /** Stops waiting for every document, e.g. when diagnostics were just turned off. */
  forgetPending(): void {
    this.update(() => this.pending.clear());
  }

  private update(change: () => void): void {
    const before = this.state;
    change();
    if (this.state !== before) {
      this.changed.fire(this.state);
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/**
 * Client middleware that feeds document traffic into `status` and then lets it through. Only
 * documents for which `publishesDiagnostics` holds are waited for: with diagnostics turned off
 * the server publishes nothing, and the status would never settle.
 */
export function analysisTracking(status: ServerStatus, publishesDiagnostics: (uri: vscode.Uri) => boolean): Middleware {
  const requested = (uri: vscode.Uri): void => {
    if (publishesDiagnostics(uri)) {
      status.analysisRequested(uri.toString());
    }
  };
  return {
    didOpen: (document, next) => {
      requested(document.uri);
      return next(document);
    },
    didChange: (event, next) => {
      requested(event.document.uri);
      return next(event);
    },
    didClose: (document, next) => {
      status.analysisSettled(document.uri.toString());
      return next(document);
    },
    handleDiagnostics: (uri, diagnostics, next) => {
      status.analysisSettled(uri.toString());
      next(uri, diagnostics);
    },
  };
}

interface Look {
  readonly text: string;
  readonly tooltip: string;
  readonly error: boolean;
}

/** How each state looks in the status bar. */
export function lookOf(status: ServerStatus): Look {
  switch (status.state) {
    case 'stopped':
      return { text: '$(circle-slash) PyPTO', tooltip: 'PyPTO language server: stopped', error: false };
    case 'starting':
      return { text: '$(loading~spin) PyPTO', tooltip: 'PyPTO language server: starting', error: false };
    case 'ready':
      return { text: '$(check) PyPTO', tooltip: `PyPTO language server: ready (${status.detail})`, error: false };
    case 'analysing':
      return {
        text: '$(sync~spin) PyPTO',
        tooltip: `PyPTO language server: analysing ${status.pendingCount} document(s)`,
        error: false,
      };
    case 'failed':
      return { text: '$(error) PyPTO', tooltip: `PyPTO language server failed: ${status.detail}`, error: true };
  }
}

/** The status bar item; clicking it opens the log, where the reason for any state is written. */
export function showStatusBarItem(status: ServerStatus, command: string): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('pypto.status', vscode.StatusBarAlignment.Right, 100);
  item.name = 'PyPTO Language Server';
  item.command = command;
  const render = (): void => {
    const look = lookOf(status);
    item.text = look.text;
    item.tooltip = look.tooltip;
    item.backgroundColor = look.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  };
  render();
  item.show();
  const subscription = status.onDidChange(render);
  return vscode.Disposable.from(subscription, item);
}
