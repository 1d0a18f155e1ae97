import type { ServerStartSettings } from './settings';

/** The module run by `<python> -m`, and the console script pip installs next to it. */
export const SERVER_MODULE = 'pypto_lsp';
const SERVER_SCRIPT = 'pypto-lsp';
/** The oldest Python the server runs on (pyproject.toml's requires-python). */
export const MINIMUM_PYTHON: readonly [number, number] = [3, 10];

/** A process to spawn, with where it came from for the log and the status tooltip. */
export interface ServerCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly origin: string;
}

/** One way of starting the server that was tried and did not work, and why. */
export interface Rejection {
  readonly origin: string;
  readonly reason: string;
}

/** What an interpreter said about itself; `hasServer` tells whether `-m pypto_lsp` would run. */
export interface PythonInfo {
  readonly version: readonly number[];
  readonly hasServer: boolean;
}

/** Questions about the machine, kept behind an interface so the order of resolution is testable. */
export interface Probes {
  /** The executable `name` refers to (a path, or a bare name looked up on PATH), if any. */
  findExecutable(name: string): Promise<string | undefined>;
  /** The interpreter's version and whether it has the server installed, or why it cannot say. */
  inspectPython(python: string): Promise<PythonInfo | string>;
}

export interface ResolutionInputs {
  readonly settings: ServerStartSettings;
  /** The Python extension's active interpreter; undefined when that extension is absent. */
  readonly activeInterpreter: () => Promise<string | undefined>;
  /** The bundled server's launcher script, or undefined in a build without the bundle. */
  readonly bundledLauncher: string | undefined;
  /** Interpreter names looked up on PATH, in order (`python3`, `python`; `python`, `py` on Windows). */
  readonly pythonNames: readonly string[];
  readonly probes: Probes;
}

/** Why no server could be started: no usable interpreter, or an interpreter but nothing to run. */
export type Failure = 'no-python' | 'no-server';

export type Resolution =
  | { readonly ok: true; readonly server: ServerCommand; readonly rejected: readonly Rejection[] }
  | { readonly ok: false; readonly failure: Failure; readonly rejected: readonly Rejection[] };

const versionText = (version: readonly number[]): string => version.join('.');

function tooOld(version: readonly number[]): boolean {
  const [major = 0, minor = 0] = version;
  return major < MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor < MINIMUM_PYTHON[1]);
}

async function fromCommandSetting({
  settings,
  probes,
}: ResolutionInputs): Promise<ServerCommand | Rejection | undefined> {
  const [program, ...args] = settings.command;
  if (program === undefined) {
    return undefined;
  }
  const origin = 'setting pypto.server.command';
  return (await probes.findExecutable(program)) === undefined
    ? { origin, reason: `${program} is not an executable file or a program on PATH` }
    : { command: program, args, origin };
}

/** The interpreters to try, in order, each with where it came from. */
async function interpreterCandidates(inputs: ResolutionInputs): Promise<{ python: string; origin: string }[]> {
  const candidates: { python: string; origin: string }[] = [];
  if (inputs.settings.pythonPath !== '') {
    candidates.push({ python: inputs.settings.pythonPath, origin: 'setting pypto.server.pythonPath' });
  }
  const active = await inputs.activeInterpreter();
  if (active !== undefined) {
    candidates.push({ python: active, origin: `the Python extension's interpreter ${active}` });
  }
  for (const name of inputs.pythonNames) {
    candidates.push({ python: name, origin: `${name} on PATH` });
  }
  return candidates;
}

/** The first interpreter that runs and is new enough, and every one passed over. */
async function findInterpreter(
  inputs: ResolutionInputs,
  rejected: Rejection[],
): Promise<{ python: string; info: PythonInfo } | undefined> {
  for (const { python, origin } of await interpreterCandidates(inputs)) {
    const onPath = origin.endsWith(' on PATH');
    const found = onPath ? await inputs.probes.findExecutable(python) : python;
    if (found === undefined) {
      rejected.push({ origin, reason: 'not found' });
      continue;
    }
    const info = await inputs.probes.inspectPython(found);
    if (typeof info === 'string') {
      rejected.push({ origin, reason: info });
    } else if (tooOld(info.version)) {
      rejected.push({
        origin,
        reason: `Python ${versionText(info.version)} is older than ${versionText(MINIMUM_PYTHON)}`,
      });
    } else {
      return { python: found, info };
    }
  }
  return undefined;
}

/** The pypto-lsp installed for `python`, else `pypto-lsp` on PATH; each miss is recorded. */
async function installedServer(
  python: string,
  info: PythonInfo,
  probes: Probes,
  rejected: Rejection[],
): Promise<ServerCommand | undefined> {
  const origin = `pypto-lsp installed for ${python}`;
  if (info.hasServer) {
    return { command: python, args: ['-m', SERVER_MODULE], origin };
  }
  rejected.push({ origin, reason: `${SERVER_MODULE} is not installed for ${python}` });
  const script = await probes.findExecutable(SERVER_SCRIPT);
  if (script !== undefined) {
    return { command: script, args: [], origin: `${SERVER_SCRIPT} on PATH` };
  }
  rejected.push({ origin: `${SERVER_SCRIPT} on PATH`, reason: 'not found' });
  return undefined;
}

function bundledServer(python: string, launcher: string | undefined, rejected: Rejection[]): ServerCommand | undefined {
  if (launcher === undefined) {
    rejected.push({ origin: 'the bundled server', reason: 'this build of the extension has none' });
    return undefined;
  }
  return { command: python, args: [launcher], origin: `the bundled server, run by ${python}` };
}

/**
 * Picks the server to start, in this order:
 * 1. `pypto.server.command`, when set and executable;
 * 2. an interpreter: `pypto.server.pythonPath`, else the Python extension's, else the first of
 *    `pythonNames` on PATH; the first that runs and is Python 3.10 or newer;
 * 3. with that interpreter, by `pypto.server.importStrategy`: `useBundled` runs the server
 *    bundled in the extension (an installed pypto-lsp only if the build has no bundle);
 *    `fromEnvironment` runs the pypto-lsp installed for it, else `pypto-lsp` on PATH, else the
 *    bundled one.
 * A setting that does not work falls through to the next step (and is reported).
 */
export async function resolveServerCommand(inputs: ResolutionInputs): Promise<Resolution> {
  const rejected: Rejection[] = [];
  const command = await fromCommandSetting(inputs);
  if (command !== undefined && 'command' in command) {
    return { ok: true, server: command, rejected };
  }
  if (command !== undefined) {
    rejected.push(command);
  }
  const interpreter = await findInterpreter(inputs, rejected);
  if (interpreter === undefined) {
    return { ok: false, failure: 'no-python', rejected };
  }
  const { python, info } = interpreter;
  const order: readonly (() => Promise<ServerCommand | undefined>)[] =
    inputs.settings.importStrategy === 'fromEnvironment'
      ? [
          () => installedServer(python, info, inputs.probes, rejected),
          () => Promise.resolve(bundledServer(python, inputs.bundledLauncher, rejected)),
        ]
      : [
          () => Promise.resolve(bundledServer(python, inputs.bundledLauncher, rejected)),
          () => installedServer(python, info, inputs.probes, rejected),
        ];
  for (const next of order) {
    const server = await next();
    if (server !== undefined) {
      return { ok: true, server, rejected };
    }
  }
  return { ok: false, failure: 'no-server', rejected };
}

/** The message shown when nothing could be started: what is missing, what to do, what was tried. */
export function failureMessage(failure: Failure, rejected: readonly Rejection[]): string {
  const tried = rejected.map(({ origin, reason }) => `${origin}: ${reason}`).join('; ');
  const minimum = versionText(MINIMUM_PYTHON);
  const what =
    failure === 'no-python'
      ? `PyPTO: no Python ${minimum} or newer was found to run the language server. Install one, ` +
        `select it in the Python extension or set pypto.server.pythonPath to it (or set ` +
        `pypto.server.command to a server command line).`
      : `PyPTO: this build of the extension has no bundled language server and none is installed. ` +
        `Install pypto-lsp from its repository (pip install <path to the pypto-lsp checkout>) for ` +
        `that interpreter, or install a packaged .vsix, which carries the server.`;
  return `${what} Tried ${tried}.`;
}

/** The warning logged when a way of starting the server was passed over. */
export function rejectionLine({ origin, reason }: Rejection): string {
  return `Not using ${origin}: ${reason}`;
}
