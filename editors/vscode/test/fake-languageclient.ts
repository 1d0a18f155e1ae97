/**
 * Stands in for `vscode-languageclient/node` (which requires the real `vscode` module): a
 * LanguageClient that records how it was built and walks through the states a real one does.
 * Tests use it with `vi.mock('vscode-languageclient/node', () => import('./fake-languageclient'))`.
 */
import { vi } from 'vitest';

export enum State {
  Stopped = 1,
  Running = 2,
  Starting = 3,
}

export const TransportKind = { stdio: 0, ipc: 1, pipe: 2, socket: 3 } as const;

export const DidChangeConfigurationNotification = { type: { method: 'workspace/didChangeConfiguration' } };

interface Executable {
  command: string;
  args?: string[];
  transport?: number;
  options?: { cwd?: string; env?: Record<string, string | undefined> };
}

type StateListener = (event: { oldState: State; newState: State }) => void;

/** Every client constructed since the test last cleared it, oldest first. */
export const clients: LanguageClient[] = [];

let startError: Error | undefined;

/** Makes every following `start()` fail with `error` (undefined: succeed again). */
export function failStartsWith(error: Error | undefined): void {
  startError = error;
}

export class LanguageClient {
  state = State.Stopped;
  private listeners: StateListener[] = [];
  readonly sendRequest = vi.fn(async (_method: string, _params: unknown, _token: unknown): Promise<unknown> => ({
    text: 'def main_incore_0(',
  }));

  readonly sendNotification = vi.fn(async (_type: unknown, _params: unknown): Promise<void> => undefined);

  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: Executable,
    readonly clientOptions: Record<string, unknown>,
  ) {
    clients.push(this);
  }

  /**
   * The command line the real client would spawn: vscode-languageclient appends `--stdio` for
   * `TransportKind.stdio` (and other flags for the other transports).
   */
  get commandLine(): string[] {
    const { command, args = [], transport } = this.serverOptions;
    return transport === TransportKind.stdio ? [command, ...args, '--stdio'] : [command, ...args];
  }

  onDidChangeState(listener: StateListener): { dispose(): void } {
    this.listeners.push(listener);
    return { dispose: () => undefined };
  }

  isRunning(): boolean {
    return this.state === State.Running;
  }

  async start(): Promise<void> {
    this.move(State.Starting);
    if (startError !== undefined) {
      this.move(State.Stopped);
      throw startError;
    }
    this.move(State.Running);
  }

  async dispose(): Promise<void> {
    this.move(State.Stopped);
  }

  /** The server process died on its own. */
  crash(): void {
    this.move(State.Stopped);
  }

  private move(newState: State): void {
    const oldState = this.state;
    this.state = newState;
    this.listeners.forEach((listener) => listener({ oldState, newState }));
  }
}
