/**
 * A stand-in for the `vscode` module, which exists only inside the extension host; vitest
 * aliases `vscode` to this file. Uri is VS Code's own implementation (the `vscode-uri`
 * package), and configuration defaults come from this extension's package.json, so tests see
 * the manifest users get. Everything the host would do is a `vi.fn` the tests can inspect.
 */
import { readFileSync } from 'node:fs';
import { vi } from 'vitest';
import { URI } from 'vscode-uri';

export { URI as Uri };

export class Disposable {
  constructor(private readonly callOnDispose: () => unknown) {}

  static from(...disposables: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => disposables.forEach((disposable) => disposable.dispose()));
  }

  dispose(): void {
    this.callOnDispose();
  }
}

export class EventEmitter<T> {
  private listeners: ((value: T) => unknown)[] = [];

  readonly event = (listener: (value: T) => unknown): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((other) => other !== listener);
    });
  };

  fire(value: T): void {
    this.listeners.forEach((listener) => listener(value));
  }

  dispose(): void {
    this.listeners = [];
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}

  translate(lineDelta = 0, characterDelta = 0): Position {
    return new Position(this.line + lineDelta, this.character + characterDelta);
  }
}

export class Range {
  readonly start: Position;
  readonly end: Position;

  constructor(start: Position | number, end: Position | number, endLine?: number, endCharacter?: number) {
    if (typeof start === 'number' && typeof end === 'number') {
      this.start = new Position(start, end);
      this.end = new Position(endLine ?? start, endCharacter ?? end);
    } else {
      this.start = start as Position;
      this.end = end as Position;
    }
  }
}

export class Selection extends Range {
  get anchor(): Position {
    return this.start;
  }

  get active(): Position {
    return this.end;
  }
}

export class CancellationTokenSource {
  readonly token = { isCancellationRequested: false };

  cancel(): void {
    this.token.isCancellationRequested = true;
  }

  dispose(): void {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
  Two = 2,
}

export enum TextEditorRevealType {
  Default = 0,
  InCenter = 1,
  InCenterIfOutsideViewport = 2,
  AtTop = 3,
}

interface ManifestProperty {
  default?: unknown;
}

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, ManifestProperty> } };
};

/** Values the user "set"; tests write here, `resetVscodeMock` clears it. */
export const userSettings = new Map<string, unknown>();

export interface MockDocument {
  uri: URI;
  languageId: string;
  getText(): string;
}

export interface MockEditor {
  document: MockDocument;
  selection: Selection | undefined;
  revealRange: ReturnType<typeof vi.fn>;
}

/** Documents `openTextDocument` returns, by URI; an unknown URI gets an empty Python document. */
export const documentTexts = new Map<string, string>();

function makeDocument(uri: URI): MockDocument {
  return {
    uri,
    languageId: uri.path.endsWith('.py') ? 'python' : 'plaintext',
    getText: () => documentTexts.get(uri.toString()) ?? '',
  };
}

export const workspace = {
  workspaceFolders: undefined as { uri: URI }[] | undefined,
  textDocuments: [] as MockDocument[],
  getConfiguration: vi.fn((section: string) => ({
    get: <T>(key: string, fallback?: T): T | undefined => {
      const full = `${section}.${key}`;
      if (userSettings.has(full)) {
        return userSettings.get(full) as T;
      }
      return (manifest.contributes.configuration.properties[full]?.default as T | undefined) ?? fallback;
    },
    inspect: (key: string) => ({
      key: `${section}.${key}`,
      defaultValue: manifest.contributes.configuration.properties[`${section}.${key}`]?.default,
    }),
  })),
  openTextDocument: vi.fn(async (uri: URI) => makeDocument(uri)),
  registerTextDocumentContentProvider: vi.fn((_scheme: string, _provider: unknown) => new Disposable(() => undefined)),
  onDidChangeTextDocument: vi.fn((_listener: (event: never) => unknown) => new Disposable(() => undefined)),
  onDidOpenTextDocument: vi.fn((_listener: (document: never) => unknown) => new Disposable(() => undefined)),
  onDidCloseTextDocument: vi.fn((_listener: (document: never) => unknown) => new Disposable(() => undefined)),
  onDidChangeConfiguration: vi.fn((_listener: (event: never) => unknown) => new Disposable(() => undefined)),
  onDidGrantWorkspaceTrust: vi.fn((_listener: (event: never) => unknown) => new Disposable(() => undefined)),
};

export class TabInputText {
  constructor(readonly uri: URI) {}
}

export class TabInputTextDiff {
  constructor(
    readonly original: URI,
    readonly modified: URI,
  ) {}
}

export interface MockTab {
  input: unknown;
  isActive?: boolean;
}

interface MockTabGroup {
  viewColumn: number;
  tabs: MockTab[];
}

export const window = {
  activeTextEditor: undefined as MockEditor | undefined,
  tabGroups: {
    all: [] as MockTabGroup[],
    onDidChangeTabs: vi.fn(
      (_listener: (event: { opened: MockTab[]; closed: MockTab[]; changed: MockTab[] }) => unknown) =>
        new Disposable(() => undefined),
    ),
  },
  showErrorMessage: vi.fn(async (_message: string, ..._items: string[]): Promise<string | undefined> => undefined),
  showInformationMessage: vi.fn(async (_message: string): Promise<string | undefined> => undefined),
  showWarningMessage: vi.fn(async (_message: string): Promise<string | undefined> => undefined),
  showQuickPick: vi.fn(async <T>(items: readonly T[], _options?: unknown): Promise<T | undefined> => items[0]),
  showTextDocument: vi.fn(async (document: MockDocument, _options?: unknown): Promise<MockEditor> => ({
    document,
    selection: undefined,
    revealRange: vi.fn(),
  })),
  createStatusBarItem: vi.fn(() => ({
    name: '',
    text: '',
    tooltip: '',
    command: '',
    backgroundColor: undefined as ThemeColor | undefined,
    show: vi.fn(),
    dispose: vi.fn(),
  })),
  createOutputChannel: vi.fn(() => logChannel()),
};

export const commands = {
  registerCommand: vi.fn((_id: string, _handler: (...args: unknown[]) => unknown) => new Disposable(() => undefined)),
  executeCommand: vi.fn(async (_id: string, ..._args: unknown[]): Promise<unknown> => undefined),
};

export const languages = {
  setTextDocumentLanguage: vi.fn(async (document: MockDocument, languageId: string) => ({ ...document, languageId })),
};

/** `remoteName` is undefined in a local window, e.g. 'ssh-remote' in a remote one. */
export const env: { remoteName: string | undefined } = { remoteName: undefined };

export const extensions = {
  getExtension: vi.fn((_id: string): unknown => undefined),
};

/** A LogOutputChannel whose methods record their calls. */
export function logChannel() {
  return {
    name: 'PyPTO',
    trace: vi.fn(),
    debug: vi.fn(),
    info: vi.fn(),
    warn: vi.fn(),
    error: vi.fn(),
    append: vi.fn(),
    appendLine: vi.fn(),
    show: vi.fn(),
    dispose: vi.fn(),
  };
}

/** Forgets settings, documents and recorded calls between tests. */
export function resetVscodeMock(): void {
  userSettings.clear();
  documentTexts.clear();
  workspace.textDocuments = [];
  workspace.workspaceFolders = undefined;
  window.activeTextEditor = undefined;
  window.tabGroups.all = [];
  env.remoteName = undefined;
  vi.clearAllMocks();
}

export class Location {
  constructor(
    readonly uri: URI,
    readonly range: Range,
  ) {}
}
