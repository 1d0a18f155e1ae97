import type * as vscode from 'vscode';

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

/** An error's message, for the comment a document shows instead of its content. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
