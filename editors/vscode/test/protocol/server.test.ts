/**
 * Drives the real `pypto-lsp` process with the protocol library vscode-languageclient is built
 * on, and checks the contract the extension depends on: the requests it sends, the custom
 * request, the lens command and the `window/showDocument` it answers. Set PYPTO_PYTHON to test
 * another interpreter.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodeLensRequest,
  ConfigurationRequest,
  createProtocolConnection,
  DefinitionRequest,
  type Diagnostic,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  type InitializeResult,
  type MarkupContent,
  type Position,
  type ProtocolConnection,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  RequestType,
  ShowDocumentRequest,
  type ShowDocumentParams,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageserver-protocol/node';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const QUICKSTART = `${REPO}examples/quickstart.py`;
const TIMEOUT_MS = 20_000;

/** The interpreter to run the server with: $PYPTO_PYTHON, the repository's venv, or python3. */
function serverPython(): string {
  const venv = `${REPO}.venv/bin/python`;
  return process.env['PYPTO_PYTHON'] ?? (existsSync(venv) ? venv : 'python3');
}

/** The LSP position (UTF-16, like JS strings) of `offset` characters into the first `snippet`. */
function positionOf(text: string, snippet: string, offset = 0): Position {
  const index = text.indexOf(snippet);
  if (index < 0) {
    throw new Error(`${snippet} is not in the test source`);
  }
  const before = text.slice(0, index + offset).split('\n');
  return { line: before.length - 1, character: before[before.length - 1]?.length ?? 0 };
}

/** The server's options exactly as the extension sends them with the manifest defaults. */
const PYPTO_OPTIONS = {
  diagnostics: { enable: true },
  codeLens: { enable: true },
  inlayHints: { enable: true },
  analysis: { debounceMs: 50, extraPaths: [], spliceBudget: 20000 },
};

const OutlinedProgramRequest = new RequestType<{ uri: string }, { text: string }, void>('pypto/outlinedProgram');

const source = readFileSync(QUICKSTART, 'utf8');
const uri = pathToFileURL(QUICKSTART).toString();

let server: ChildProcess;
let connection: ProtocolConnection;
let initialized: InitializeResult;
let stderr = '';
let diagnostics: Promise<Diagnostic[]>;
const shownDocuments: ShowDocumentParams[] = [];

beforeAll(async () => {
  server = spawn(serverPython(), ['-m', 'pypto_lsp'], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  server.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  if (server.stdout === null || server.stdin === null) {
    throw new Error('the server was spawned without pipes');
  }
  connection = createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  diagnostics = new Promise((resolve) => {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      if (params.uri === uri) {
        resolve(params.diagnostics);
      }
    });
  });
  connection.onRequest(ConfigurationRequest.type, (params) =>
    params.items.map((item) => (item.section === 'pypto' ? PYPTO_OPTIONS : null)),
  );
  connection.onRequest(ShowDocumentRequest.type, (params) => {
    shownDocuments.push(params);
    return { success: true };
  });
  connection.onRequest(RegistrationRequest.type, () => undefined);
  connection.onRequest(WorkDoneProgressCreateRequest.type, () => undefined);
  connection.listen();

  const died = new Promise<never>((_, reject) => {
    server.once('exit', (code) =>
      reject(new Error(`pypto-lsp exited (code ${String(code)}) during initialize:\n${stderr}`)),
    );
  });
  const initialize = connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    clientInfo: { name: 'pypto-vscode-protocol-test' },
    // VS Code still sends the deprecated rootUri next to workspaceFolders; so does this client.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    rootUri: pathToFileURL(REPO).toString(),
    workspaceFolders: [{ uri: pathToFileURL(REPO).toString(), name: 'pypto-lsp' }],
    initializationOptions: { pypto: PYPTO_OPTIONS },
    capabilities: {
      general: { positionEncodings: ['utf-16'] },
      window: { showDocument: { support: true } },
      workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } },
      textDocument: {
        synchronization: { didSave: true },
        publishDiagnostics: { relatedInformation: true },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        codeLens: {},
      },
    },
  });
  initialized = await Promise.race([initialize, died]);
  await connection.sendNotification(InitializedNotification.type, {});
  await connection.sendNotification(DidOpenTextDocumentNotification.type, {
    textDocument: { uri, languageId: 'python', version: 1, text: source },
  });
}, TIMEOUT_MS);

afterAll(async () => {
  if (server.exitCode !== null || server.signalCode !== null) {
    return; // it died during initialize, which beforeAll reported
  }
  const exited = new Promise<number | null>((resolve) => server.once('exit', resolve));
  await connection.sendRequest(ShutdownRequest.type);
  await connection.sendNotification(ExitNotification.type);
  expect(await exited).toBe(0);
  connection.dispose();
}, TIMEOUT_MS);

describe('pypto-lsp over stdio, as the extension talks to it', () => {
  it('initializes with the features and the lens command the extension relies on', () => {
    const { capabilities } = initialized;
    expect(capabilities.hoverProvider).toBeTruthy();
    expect(capabilities.codeLensProvider).toBeTruthy();
    expect(capabilities.executeCommandProvider?.commands).toContain('pypto.showOutlinedFunction');
  });

  it('publishes PTO301 on the scalar read inside a scope', { timeout: TIMEOUT_MS }, async () => {
    const published = await diagnostics;
    const read = positionOf(source, 'n = pl.read(cfg, [0])');
    const pto301 = published.filter((diagnostic) => diagnostic.code === 'PTO301');
    expect(pto301, `stderr:\n${stderr}`).toHaveLength(1);
    expect(pto301[0]?.range.start.line).toBe(read.line);
  });

  it('puts a lens on each scope that opens its outlined function', { timeout: TIMEOUT_MS }, async () => {
    const lenses = await connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
    const lens = lenses?.find((candidate) => candidate.command?.title.includes('main_incore_0'));
    expect(lens?.range.start.line).toBe(positionOf(source, 'with pl.at(level=pl.Level.CORE_GROUP):').line);
    expect(lens?.command?.command).toBe('pypto.showOutlinedFunction');
    expect(lens?.command?.arguments).toEqual([uri, 'main_incore_0']);
  });

  it('describes the outlined function on hover over a scope header', { timeout: TIMEOUT_MS }, async () => {
    const hover = await connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: positionOf(source, 'with pl.at(level=pl.Level.CORE_GROUP):', 'with pl.'.length),
    });
    expect((hover?.contents as MarkupContent | undefined)?.value).toContain('main_incore_0');
  });

  it('answers pypto/outlinedProgram with the printed outlined program', { timeout: TIMEOUT_MS }, async () => {
    const { text } = await connection.sendRequest(OutlinedProgramRequest, { uri });
    expect(text).toContain('def main_incore_0');
  });

  it(
    'leads from a call in the outlined document back to its scope in the source',
    { timeout: TIMEOUT_MS },
    async () => {
      const { text } = await connection.sendRequest(OutlinedProgramRequest, { uri });
      const outlined = `pypto-outlined:${fileURLToPath(uri)}%20%28outlined%29`; // as VS Code spells it
      await connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: outlined, languageId: 'python', version: 1, text },
      });
      const target = await connection.sendRequest(DefinitionRequest.type, {
        textDocument: { uri: outlined },
        position: positionOf(text, 'def main_incore_0(', 'def '.length),
      });
      const location = Array.isArray(target) ? target[0] : target;
      expect(location && 'uri' in location ? location : undefined).toMatchObject({
        uri,
        range: { start: { line: positionOf(source, 'with pl.at(level=pl.Level.CORE_GROUP):').line } },
      });
    },
  );

  it('shows the outlined document at the function when the lens command runs', { timeout: TIMEOUT_MS }, async () => {
    await connection.sendRequest(ExecuteCommandRequest.type, {
      command: 'pypto.showOutlinedFunction',
      arguments: [uri, 'main_incore_0'],
    });
    const { text } = await connection.sendRequest(OutlinedProgramRequest, { uri });
    expect(shownDocuments).toHaveLength(1);
    expect(shownDocuments[0]?.uri).toBe(`pypto-outlined:${fileURLToPath(uri)}%20(outlined)`);
    expect(shownDocuments[0]?.selection?.start).toEqual(positionOf(text, 'def main_incore_0(', 'def '.length));
  });
});
