import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as vscode from 'vscode';
import {
  parseStageUri,
  type PassTrace,
  type ProgramTrace,
  PassTraceProvider,
  showPassTrace,
  stageItems,
  stageUri,
  type TraceStage,
} from '../src/common/trace';
import { commands, resetVscodeMock, TabInputTextDiff, window, workspace } from './vscode.mock';

beforeEach(resetVscodeMock);
afterEach(() => {
  vi.useRealTimers();
});

const token = { isCancellationRequested: false } as vscode.CancellationToken;
const source = vscode.Uri.file('/work/my kernels/quickstart.py');

function stage(index: number, file: string, changes: Partial<TraceStage> = {}): TraceStage {
  const base = {
    index,
    key: file.replace(/^\d+_(after_)?/, '').replace(/\.py$/, ''),
    pass: null,
    file,
    text: `# text of ${file}\n`,
    added: [],
    changed: [],
    removed: [],
    diagnostics: [],
  };
  const merged = { ...base, ...changes };
  return { ...merged, unchanged: merged.added.length + merged.changed.length + merged.removed.length === 0 };
}

const PROGRAM: ProgramTrace = {
  name: 'Quickstart',
  function: null,
  lastChange: 'OutlineIncoreScopes',
  stages: [
    stage(0, '00_frontend.py'),
    stage(1, '01_after_ConvertToSSA.py'),
    stage(2, '02_after_OutlineIncoreScopes.py', {
      added: ['main_incore_0'],
      changed: ['main'],
      diagnostics: [{ code: 'PTO301', severity: 'error', message: 'scalar n', line: 40 }],
    }),
  ],
};
const TRACE: PassTrace = { programs: [PROGRAM] };

describe('stage documents', () => {
  it('are named like the dump file of their stage and lead back to their source', () => {
    const uri = stageUri(source, 'Quickstart', '02_after_OutlineIncoreScopes.py');
    expect(uri.path.endsWith('/Quickstart/02_after_OutlineIncoreScopes.py')).toBe(true);
    const ref = parseStageUri(vscode.Uri.parse(uri.toString()));
    expect(ref?.source.toString()).toBe(source.toString());
    expect([ref?.program, ref?.file]).toEqual(['Quickstart', '02_after_OutlineIncoreScopes.py']);
    expect(parseStageUri(source)).toBeUndefined();
  });

  it('are served with their own stage text, findings first', async () => {
    const fetch = vi.fn(async () => TRACE);
    const provider = new PassTraceProvider(fetch, () => 50);
    const [left, right] = await Promise.all([
      provider.provideTextDocumentContent(stageUri(source, 'Quickstart', '01_after_ConvertToSSA.py'), token),
      provider.provideTextDocumentContent(stageUri(source, 'Quickstart', '02_after_OutlineIncoreScopes.py'), token),
    ]);
    expect(fetch).toHaveBeenCalledWith(
      { uri: source.toString(), program: 'Quickstart', stages: ['02_after_OutlineIncoreScopes.py'] },
      token,
    );
    expect(left).toBe('# text of 01_after_ConvertToSSA.py\n');
    expect(right).toBe('# line 41: error PTO301: scalar n\n\n# text of 02_after_OutlineIncoreScopes.py\n');
  });

  it('say why when the program or the server is gone', async () => {
    const gone = new PassTraceProvider(
      async () => ({ programs: [] }),
      () => 50,
    );
    expect(await gone.provideTextDocumentContent(stageUri(source, 'Quickstart', '00_frontend.py'), token)).toContain(
      'has no stage 00_frontend.py now',
    );
    const down = new PassTraceProvider(
      async () => Promise.reject(new Error('the PyPTO language server is not running')),
      () => 50,
    );
    expect(await down.provideTextDocumentContent(stageUri(source, 'Quickstart', '00_frontend.py'), token)).toContain(
      'not available: the PyPTO language server is not running',
    );
  });

  it('refresh, after the debounce, only the open stages of the edited source', () => {
    vi.useFakeTimers();
    const provider = new PassTraceProvider(
      async () => TRACE,
      () => 50,
    );
    const fired: string[] = [];
    provider.onDidChange((uri) => fired.push(uri.toString()));
    const mine = stageUri(source, 'Quickstart', '00_frontend.py');
    const other = stageUri(vscode.Uri.file('/work/other.py'), 'P', '00_frontend.py');
    const before = stageUri(source, 'Quickstart', '04_after_OutlineHierarchyScopes.py');
    workspace.textDocuments = [mine, other, before].map((uri) => ({ uri, languageId: 'python', getText: () => '' }));
    // the diff editor shows both sides; `before` is its original side, `other` on screen too
    window.tabGroups.all = [
      { viewColumn: 1, tabs: [{ input: new TabInputTextDiff(before, mine), isActive: true }] },
      { viewColumn: 2, tabs: [{ input: new TabInputTextDiff(other, other), isActive: true }] },
    ];
    provider.sourceChanged(source);
    provider.sourceChanged(source);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(fired).toEqual([mine.toString(), before.toString()]);
  });
});

describe('the stage quick pick', () => {
  it('lists each stage after the front end with what it changed, or that it did not', () => {
    const items = stageItems(PROGRAM);
    expect(items.map((i) => [i.label, i.description, i.detail])).toEqual([
      ['01_after_ConvertToSSA', 'unchanged', undefined],
      ['02_after_OutlineIncoreScopes', '+main_incore_0; changed main', 'PTO301'],
    ]);
  });
});

describe('PyPTO: Show Pass Trace', () => {
  it('opens the diff editor between a stage and the one before it, for the program under the cursor', async () => {
    window.activeTextEditor = {
      document: { uri: source, languageId: 'python', getText: () => '' },
      selection: new vscode.Selection(3, 4, 3, 4),
      revealRange: vi.fn(),
    };
    const fetch = vi.fn(async () => TRACE);
    const right = await showPassTrace(fetch, undefined, undefined, '02_after_OutlineIncoreScopes.py');
    expect((fetch.mock.calls[0] as unknown[])[0]).toEqual({
      uri: source.toString(),
      stages: [],
      position: { line: 3, character: 4 },
    });
    const [command, left, shown, title] = commands.executeCommand.mock.calls[0] ?? [];
    expect(command).toBe('vscode.diff');
    expect((left as vscode.Uri).path.endsWith('/Quickstart/01_after_ConvertToSSA.py')).toBe(true);
    expect((shown as vscode.Uri).toString()).toBe(right?.toString());
    expect(title).toBe('quickstart.py · Quickstart: 01_after_ConvertToSSA.py ↔ 02_after_OutlineIncoreScopes.py');
  });

  it('says so when the file has no program', async () => {
    expect(await showPassTrace(async () => ({ programs: [] }), source.toString(), 'P', 'incore')).toBeUndefined();
    expect(window.showInformationMessage).toHaveBeenCalledWith('PyPTO: this file has no program to trace.');
    expect(commands.executeCommand).not.toHaveBeenCalled();
  });
});
