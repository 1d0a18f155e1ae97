import * as vscode from 'vscode';
import { cursorIn } from './cursor';
import { describeError, KeyedDebounce, OnScreenRefresh } from './refresh';

/** Scheme of the read-only documents that show one stage of a program's pass trace. */
export const TRACE_SCHEME = 'pypto-trace';

/** The server's custom request (`pypto_lsp/pass_trace.py`). */
export const PASS_TRACE_REQUEST = 'pypto/passTrace';

/** The command behind *PyPTO: Show Pass Trace* and the "pass trace" lens on each program. */
export const SHOW_PASS_TRACE = 'pypto.showPassTrace';

export interface PassTraceParams {
  readonly uri: string;
  readonly program?: string;
  readonly function?: string;
  readonly position?: { readonly line: number; readonly character: number };
  readonly rawNames?: boolean;
  /** The stages (keys or file names) whose text to send; all when absent. */
  readonly stages?: readonly string[];
}

export interface TraceStage {
  readonly index: number;
  readonly key: string;
  readonly pass: string | null;
  /** The compiler's dump file name, `04_after_OutlineHierarchyScopes.py`. */
  readonly file: string;
  /** Null unless the request asked for this stage's text. */
  readonly text: string | null;
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  readonly unchanged: boolean;
  readonly diagnostics: readonly { code: string; severity: string; message: string; line: number }[];
}

export interface ProgramTrace {
  readonly name: string;
  readonly function: string | null;
  readonly stages: readonly TraceStage[];
  /** The key of the last stage that changed the program: what the command shows first. */
  readonly lastChange: string | null;
}

export interface PassTrace {
  readonly programs: readonly ProgramTrace[];
}

export type PassTraceFetcher = (params: PassTraceParams, token: vscode.CancellationToken) => Promise<PassTrace>;

export function isPassTrace(value: unknown): value is PassTrace {
  return typeof value === 'object' && value !== null && Array.isArray((value as Record<string, unknown>)['programs']);
}

/**
 * `pypto-trace:/a/quickstart.py/Quickstart/04_after_OutlineHierarchyScopes.py?<source>`: the
 * stage's file name ends the path, so the diff editor's title and tab read like the compiler's
 * dump files; the source's URI rides in the query.
 */
export function stageUri(source: vscode.Uri, program: string, file: string): vscode.Uri {
  const path = `${source.path}/${encodeURIComponent(program)}/${file}`;
  return vscode.Uri.from({ scheme: TRACE_SCHEME, path, query: source.toString() });
}

export interface StageRef {
  readonly source: vscode.Uri;
  readonly program: string;
  readonly file: string;
}

export function parseStageUri(uri: vscode.Uri): StageRef | undefined {
  if (uri.scheme !== TRACE_SCHEME || uri.query === '') {
    return undefined;
  }
  const parts = uri.path.split('/');
  const file = parts.pop();
  const program = parts.pop();
  if (file === undefined || program === undefined) {
    return undefined;
  }
  return { source: vscode.Uri.parse(uri.query, true), program: decodeURIComponent(program), file };
}

/** The text a stage document shows: the stage, with what the pipeline reported while it ran. */
export function stageText(stage: TraceStage): string {
  if (stage.text === null) {
    return `# The server sent no text for ${stage.file}.\n`;
  }
  const findings = stage.diagnostics.map((d) => `# line ${d.line + 1}: ${d.severity} ${d.code}: ${d.message}`);
  return findings.length === 0 ? stage.text : `${findings.join('\n')}\n\n${stage.text}`;
}

/**
 * Serves stage documents from the server and keeps open ones in step with their source: an
 * edit schedules one refresh per source, `delayMs` after the last keystroke. Each document asks
 * for its own stage's text only (the server keeps the trace of the current version, so the two
 * sides of a diff and the summary before them cost one run of the passes).
 */
export class PassTraceProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly refreshes: KeyedDebounce;
  private readonly onScreen = new OnScreenRefresh((uri) => this.changed.fire(uri));

  constructor(
    private readonly fetch: PassTraceFetcher,
    delayMs: () => number,
  ) {
    this.refreshes = new KeyedDebounce(delayMs);
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const ref = parseStageUri(uri);
    if (ref === undefined) {
      return `# ${uri.toString()} does not name a stage of a pass trace.\n`;
    }
    try {
      const trace = await this.fetch({ uri: ref.source.toString(), program: ref.program, stages: [ref.file] }, token);
      const stage = trace.programs.find((p) => p.name === ref.program)?.stages.find((s) => s.file === ref.file);
      return stage === undefined
        ? `# Program ${ref.program} of ${ref.source.toString()} has no stage ${ref.file} now ` +
            "(renamed, removed, or it does not parse): see the file's diagnostics.\n"
        : stageText(stage);
    } catch (error) {
      return `# The pass trace of ${ref.program} is not available: ${describeError(error)}\n`;
    }
  }

  /** Schedules a refresh of the open stage documents of `source`. */
  sourceChanged(source: vscode.Uri): void {
    if (source.scheme === TRACE_SCHEME) {
      return;
    }
    const key = source.toString();
    this.refreshes.schedule(key, () => this.refresh((ref) => ref.source.toString() === key));
  }

  /** Refreshes every open stage document now, e.g. after the server restarted. */
  refreshAll(): void {
    this.refresh(() => true);
  }

  private refresh(which: (ref: StageRef) => boolean): void {
    for (const document of vscode.workspace.textDocuments) {
      const ref = parseStageUri(document.uri);
      if (ref !== undefined && which(ref)) {
        this.onScreen.refresh(document.uri);
      }
    }
  }

  dispose(): void {
    this.refreshes.dispose();
    this.onScreen.dispose();
    this.changed.dispose();
  }
}

interface StageItem extends vscode.QuickPickItem {
  readonly stage: TraceStage;
}

/** One quick-pick item per stage after the front end's, saying what it changed or that it did not. */
export function stageItems(program: ProgramTrace): StageItem[] {
  return program.stages.slice(1).map((stage) => {
    const parts = [
      stage.added.length > 0 ? `+${stage.added.join(', +')}` : '',
      stage.changed.length > 0 ? `changed ${stage.changed.join(', ')}` : '',
      stage.removed.length > 0 ? `-${stage.removed.join(', -')}` : '',
    ].filter((part) => part !== '');
    return {
      label: stage.file.replace(/\.py$/, ''),
      description: stage.unchanged ? 'unchanged' : parts.join('; '),
      detail: stage.diagnostics.length > 0 ? stage.diagnostics.map((d) => d.code).join(' ') : undefined,
      stage,
    };
  });
}

/** Asks for one stage, the last that changed the program first; undefined if dismissed. */
async function pickStage(program: ProgramTrace): Promise<TraceStage | undefined> {
  const items = stageItems(program);
  const pick = vscode.window.createQuickPick<StageItem>();
  pick.title = `Pass trace of ${program.name}: show a stage beside the one before it`;
  pick.items = items;
  const preferred = items.find((item) => item.stage.key === program.lastChange) ?? items[items.length - 1];
  pick.activeItems = preferred === undefined ? [] : [preferred];
  const chosen = await new Promise<StageItem | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0] ?? pick.activeItems[0]));
    pick.onDidHide(() => resolve(undefined));
    pick.show();
  });
  pick.dispose();
  return chosen?.stage;
}

async function pickProgram(programs: readonly ProgramTrace[]): Promise<ProgramTrace | undefined> {
  if (programs.length <= 1) {
    return programs[0];
  }
  const chosen = await vscode.window.showQuickPick(
    programs.map((p) => ({ label: p.name, program: p })),
    { title: 'Pass trace: which program?' },
  );
  return chosen?.program;
}

/** The source a command invocation is about: its URI argument, else the active editor's document. */
function commandSource(argument: unknown): vscode.Uri | undefined {
  if (argument instanceof vscode.Uri) {
    return argument;
  }
  if (typeof argument === 'string') {
    return vscode.Uri.parse(argument, true);
  }
  return vscode.window.activeTextEditor?.document.uri;
}

/**
 * *PyPTO: Show Pass Trace*: VS Code's diff editor between a stage of the program under the
 * cursor (or the one the lens names) and the stage before it. `after` / `before` (stage keys
 * or file names) skip the quick pick, for keybindings and tests.
 */
export async function showPassTrace(
  fetch: PassTraceFetcher,
  argument?: unknown,
  programName?: unknown,
  after?: unknown,
  before?: unknown,
): Promise<vscode.Uri | undefined> {
  const source = commandSource(argument);
  if (source === undefined) {
    void vscode.window.showInformationMessage('PyPTO: open a Python file with a PyPTO program first.');
    return undefined;
  }
  const cursor = cursorIn(source);
  const cancel = new vscode.CancellationTokenSource();
  let trace: PassTrace;
  try {
    trace = await fetch(
      {
        uri: source.toString(),
        stages: [], // the summary: which stage changed what; each side asks for its text
        ...(typeof programName === 'string' ? { program: programName } : {}),
        ...(cursor !== undefined && typeof programName !== 'string'
          ? { position: { line: cursor.line, character: cursor.character } }
          : {}),
      },
      cancel.token,
    );
  } catch (error) {
    void vscode.window.showWarningMessage(`PyPTO: no pass trace: ${describeError(error)}`);
    return undefined;
  } finally {
    cancel.dispose();
  }
  const program = await pickProgram(trace.programs);
  if (program === undefined) {
    if (trace.programs.length === 0) {
      void vscode.window.showInformationMessage('PyPTO: this file has no program to trace.');
    }
    return undefined;
  }
  const find = (wanted: unknown): TraceStage | undefined =>
    typeof wanted === 'string' ? program.stages.find((s) => s.key === wanted || s.file === wanted) : undefined;
  const right = find(after) ?? (await pickStage(program));
  if (right === undefined) {
    return undefined;
  }
  const left = find(before) ?? program.stages[Math.max(0, right.index - 1)] ?? right;
  const rightUri = stageUri(source, program.name, right.file);
  const name = source.path.split('/').pop() ?? source.path;
  await vscode.commands.executeCommand(
    'vscode.diff',
    stageUri(source, program.name, left.file),
    rightUri,
    `${name} · ${program.name}: ${left.file} ↔ ${right.file}`,
    { preview: false, viewColumn: vscode.ViewColumn.Beside },
  );
  return rightUri;
}
