import * as vscode from 'vscode';
import type { Log } from './log';

const PYTHON_EXTENSION_ID = 'ms-python.python';

/**
 * The slice of the Python extension's public API this extension uses. It is declared here and
 * checked at run time rather than imported, so the Python extension stays optional.
 */
interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { readonly path: string };
  resolveEnvironment(environment: {
    readonly path: string;
  }): Promise<{ readonly executable: { readonly uri?: vscode.Uri } } | undefined>;
  readonly onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
}

function isEnvironmentsApi(value: unknown): value is PythonEnvironmentsApi {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const api = value as Record<string, unknown>;
  return (
    typeof api['getActiveEnvironmentPath'] === 'function' &&
    typeof api['resolveEnvironment'] === 'function' &&
    typeof api['onDidChangeActiveEnvironmentPath'] === 'function'
  );
}

/** The interpreter the user picked in the Python extension, when that extension is installed. */
export class PythonInterpreters {
  constructor(private readonly log: Log) {}

  /** The environments API, or undefined when the extension is absent, fails, or is too old. */
  private async environments(): Promise<PythonEnvironmentsApi | undefined> {
    const extension = vscode.extensions.getExtension<unknown>(PYTHON_EXTENSION_ID);
    if (extension === undefined) {
      return undefined;
    }
    try {
      const api: unknown = extension.isActive ? extension.exports : await extension.activate();
      const environments =
        typeof api === 'object' && api !== null ? (api as Record<string, unknown>)['environments'] : undefined;
      if (isEnvironmentsApi(environments)) {
        return environments;
      }
      this.log.warn(`${PYTHON_EXTENSION_ID} has no environments API; ignoring its interpreter`);
    } catch (error) {
      this.log.warn(`${PYTHON_EXTENSION_ID} failed to activate: ${String(error)}`);
    }
    return undefined;
  }

  /** Path of the active interpreter for `resource`, or undefined when there is none to use. */
  async active(resource?: vscode.Uri): Promise<string | undefined> {
    const api = await this.environments();
    if (api === undefined) {
      return undefined;
    }
    try {
      const environment = await api.resolveEnvironment(api.getActiveEnvironmentPath(resource));
      return environment?.executable.uri?.fsPath;
    } catch (error) {
      this.log.warn(`Could not resolve the Python extension's interpreter: ${String(error)}`);
      return undefined;
    }
  }

  /** Calls `listener` when the user picks another interpreter; a no-op without the extension. */
  async onDidChange(listener: () => void): Promise<vscode.Disposable> {
    const api = await this.environments();
    return api === undefined ? new vscode.Disposable(() => undefined) : api.onDidChangeActiveEnvironmentPath(listener);
  }
}
