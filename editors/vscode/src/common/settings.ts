import { homedir } from 'node:os';
import * as vscode from 'vscode';

/** The configuration section every setting of this extension lives in. */
export const SECTION = 'pypto';

/** Settings that decide which process is started; a change to any of them needs a restart. */
const SERVER_START_SETTINGS = ['server.command', 'server.pythonPath', 'server.importStrategy'] as const;

/** `useBundled`: the server inside the extension; `fromEnvironment`: an installed pypto-lsp first. */
export type ImportStrategy = 'useBundled' | 'fromEnvironment';

/** What the user asked for to start the server; empty values mean "not set". */
export interface ServerStartSettings {
  readonly command: readonly string[];
  readonly pythonPath: string;
  readonly importStrategy: ImportStrategy;
}

/**
 * The server's own options, sent as `initializationOptions` so the first analysis already
 * honours them; later changes reach the server through `workspace/configuration`.
 */
export interface ServerOptions {
  readonly diagnostics: { readonly enable: boolean; readonly docsUrl: string };
  readonly codeLens: { readonly enable: boolean; readonly passTrace: boolean };
  readonly inlayHints: { readonly enable: boolean };
  readonly semanticTokens: { readonly enable: boolean };
  readonly analysis: {
    readonly debounceMs: number;
    readonly extraPaths: readonly string[];
    readonly spliceBudget: number;
  };
  readonly outlinedProgram: { readonly rawNames: boolean };
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isBoolean(value: unknown): value is boolean {
  return typeof value === 'boolean';
}

function isImportStrategy(value: unknown): value is ImportStrategy {
  return value === 'useBundled' || value === 'fromEnvironment';
}

function isDelay(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/**
 * Reads one setting; a value of the wrong type (hand-edited settings.json) falls back to the
 * manifest default instead of reaching the server.
 */
function read<T>(config: vscode.WorkspaceConfiguration, key: string, guard: (value: unknown) => value is T): T {
  const value = config.get<unknown>(key);
  if (guard(value)) {
    return value;
  }
  const fallback = config.inspect<unknown>(key)?.defaultValue;
  if (guard(fallback)) {
    return fallback;
  }
  throw new Error(`package.json declares no valid default for ${SECTION}.${key}`);
}

/**
 * Expands `${workspaceFolder}` and `${userHome}` as the Python extension does, so a setting can
 * name a project's virtual environment without an absolute path. Without a folder the variable
 * is left as written, and the probe then reports the path as missing.
 */
export function expandVariables(value: string, folder: vscode.Uri | undefined): string {
  return value
    .replaceAll('${userHome}', homedir())
    .replaceAll('${workspaceFolder}', folder === undefined ? '${workspaceFolder}' : folder.fsPath);
}

/**
 * Reads the start settings for `folder`, dropping blank entries so `[""]` or `"  "` count as
 * unset.
 */
export function readServerStartSettings(folder?: vscode.Uri): ServerStartSettings {
  const config = vscode.workspace.getConfiguration(SECTION, folder);
  return {
    command: read(config, 'server.command', isStringArray)
      .filter((part) => part.trim() !== '')
      .map((part) => expandVariables(part, folder)),
    pythonPath: expandVariables(read(config, 'server.pythonPath', isString).trim(), folder),
    importStrategy: read(config, 'server.importStrategy', isImportStrategy),
  };
}

/** Reads the server options as the server expects them in `initializationOptions`. */
export function readServerOptions(scope?: vscode.ConfigurationScope): ServerOptions {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return {
    diagnostics: {
      enable: read(config, 'diagnostics.enable', isBoolean),
      docsUrl: read(config, 'diagnostics.docsUrl', isString),
    },
    codeLens: {
      enable: read(config, 'codeLens.enable', isBoolean),
      passTrace: read(config, 'codeLens.passTrace', isBoolean),
    },
    inlayHints: { enable: read(config, 'inlayHints.enable', isBoolean) },
    semanticTokens: { enable: read(config, 'semanticTokens.enable', isBoolean) },
    analysis: {
      debounceMs: read(config, 'analysis.debounceMs', isDelay),
      extraPaths: read(config, 'analysis.extraPaths', isStringArray),
      spliceBudget: read(config, 'analysis.spliceBudget', isDelay),
    },
    outlinedProgram: { rawNames: read(config, 'outlinedProgram.rawNames', isBoolean) },
  };
}

/** True when a configuration change turns the server's diagnostics on or off. */
export function affectsDiagnostics(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${SECTION}.diagnostics.enable`);
}

/** True when a configuration change alters what the Outlined Program document shows. */
export function affectsOutlinedProgram(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(`${SECTION}.outlinedProgram.rawNames`);
}

/** True when a configuration change means the server process has to be started again. */
export function affectsServerStart(event: vscode.ConfigurationChangeEvent): boolean {
  return SERVER_START_SETTINGS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`));
}
