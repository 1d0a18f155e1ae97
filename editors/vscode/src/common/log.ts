import * as vscode from 'vscode';

/** The logging surface the rest of the extension needs; narrower than the channel, so tests can fake it. */
export type Log = Pick<vscode.LogOutputChannel, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * One channel carries the extension's own messages, the server's stderr and the protocol trace
 * (`pypto.trace.server`), so a bug report needs a single copy-paste.
 */
export function createLogChannel(): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel('PyPTO', { log: true });
}
