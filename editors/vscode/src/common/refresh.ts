import * as vscode from 'vscode';

/**
 * What the read-only documents served from the server (the outlined program, pass-trace
 * stages) share: one pending refresh per document, run `delayMs()` after the last edit of its
 * source, so a burst of keystrokes asks the server once.
 */
export class KeyedDebounce implements vscode.Disposable {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly delayMs: () => number) {}

  /** Runs `run` once, `delayMs()` after the last call for `key`. */
  schedule(key: string, run: () => void): void {
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        run();
      }, this.delayMs()),
    );
  }

  dispose(): void {
    for (const timer of this.timers.values()) {
      clearTimeout(timer);
    }
    this.timers.clear();
  }
}

/**
 * Fires a refresh of a served document only while it is on screen (the active tab of an editor
 * group, a diff's either side), else once it comes on screen. A document whose tab was closed or
 * sits behind another stays in `workspace.textDocuments`, and every refresh makes the server
 * print the whole outlined program or stage again: on a real 1,800-line file 100-350 ms of its
 * time per keystroke, ahead of that keystroke's diagnostics and lenses.
 */
export class OnScreenRefresh implements vscode.Disposable {
  /** Documents whose refresh was held back while off screen. */
  private readonly held = new Set<string>();
  private readonly tabs: vscode.Disposable;

  constructor(private readonly fire: (uri: vscode.Uri) => void) {
    this.tabs = vscode.window.tabGroups.onDidChangeTabs((event) => {
      for (const tab of [...event.opened, ...event.changed]) {
        if (!tab.isActive) {
          continue;
        }
        for (const uri of tabUris(tab)) {
          if (this.held.delete(uri.toString())) {
            this.fire(uri);
          }
        }
      }
    });
  }

  /** Refreshes `uri` now if it is on screen, else when it next is. */
  refresh(uri: vscode.Uri): void {
    const key = uri.toString();
    if (onScreen().has(key)) {
      this.held.delete(key);
      this.fire(uri);
    } else {
      this.held.add(key);
    }
  }

  dispose(): void {
    this.tabs.dispose();
    this.held.clear();
  }
}

/** The documents of the active tab of every editor group. */
function onScreen(): Set<string> {
  return new Set(
    vscode.window.tabGroups.all
      .flatMap((group) => group.tabs.filter((tab) => tab.isActive))
      .flatMap(tabUris)
      .map((uri) => uri.toString()),
  );
}

function tabUris(tab: vscode.Tab): vscode.Uri[] {
  if (tab.input instanceof vscode.TabInputText) {
    return [tab.input.uri];
  }
  if (tab.input instanceof vscode.TabInputTextDiff) {
    return [tab.input.original, tab.input.modified];
  }
  return [];
}

/** An error's message, for the comment a document shows instead of its content. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
