import type { ServerStartSettings } from './settings';

/** The module run by `<python> -m`, and the console script pip installs next to it. */
export const SERVER_MODULE = 'pypto_lsp';
const SERVER_SCRIPT = 'pypto-lsp';
const INSTALL_HINT = 'pip install pypto-lsp';

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

/** Questions about the machine, kept behind an interface so the order of resolution is testable. */
export interface Probes {
  /** The executable `name` refers to (a path, or a bare name looked up on PATH), if any. */
  findExecutable(name: string): Promise<string | undefined>;
  /** Why `python` cannot run the server module, or undefined when it can. */
  whyCannotRunModule(python: string): Promise<string | undefined>;
}

export interface ResolutionInputs {
  readonly settings: ServerStartSettings;
  /** The Python extension's active interpreter; undefined when that extension is absent. */
  readonly activeInterpreter: () => Promise<string | undefined>;
  readonly probes: Probes;
}

export type Resolution =
  | { readonly ok: true; readonly server: ServerCommand; readonly rejected: readonly Rejection[] }
  | { readonly ok: false; readonly rejected: readonly Rejection[] };

/** A candidate answers with a command, a reason it does not work, or nothing when it does not apply. */
type Candidate = (inputs: ResolutionInputs) => Promise<ServerCommand | Rejection | undefined>;

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

async function viaInterpreter(python: string, origin: string, probes: Probes): Promise<ServerCommand | Rejection> {
  const reason = await probes.whyCannotRunModule(python);
  return reason === undefined ? { command: python, args: ['-m', SERVER_MODULE], origin } : { origin, reason };
}

async function fromPythonPathSetting({
  settings,
  probes,
}: ResolutionInputs): Promise<ServerCommand | Rejection | undefined> {
  return settings.pythonPath === ''
    ? undefined
    : viaInterpreter(settings.pythonPath, 'setting pypto.server.pythonPath', probes);
}

async function fromPythonExtension({
  activeInterpreter,
  probes,
}: ResolutionInputs): Promise<ServerCommand | Rejection | undefined> {
  const python = await activeInterpreter();
  return python === undefined
    ? undefined
    : viaInterpreter(python, `the Python extension's interpreter ${python}`, probes);
}

async function fromPath({ probes }: ResolutionInputs): Promise<ServerCommand | Rejection> {
  const origin = `${SERVER_SCRIPT} on PATH`;
  const found = await probes.findExecutable(SERVER_SCRIPT);
  return found === undefined ? { origin, reason: 'not found' } : { command: found, args: [], origin };
}

/** In order: explicit command, explicit interpreter, the Python extension's interpreter, PATH. */
const CANDIDATES: readonly Candidate[] = [fromCommandSetting, fromPythonPathSetting, fromPythonExtension, fromPath];

function isServerCommand(answer: ServerCommand | Rejection): answer is ServerCommand {
  return 'command' in answer;
}

/**
 * Picks the first way of starting the server that works. A setting that does not work falls
 * through to the next candidate (and is reported) rather than leaving the user with no server.
 */
export async function resolveServerCommand(inputs: ResolutionInputs): Promise<Resolution> {
  const rejected: Rejection[] = [];
  for (const candidate of CANDIDATES) {
    const answer = await candidate(inputs);
    if (answer === undefined) {
      continue;
    }
    if (isServerCommand(answer)) {
      return { ok: true, server: answer, rejected };
    }
    rejected.push(answer);
  }
  return { ok: false, rejected };
}

/** The message shown when no candidate works: what to install, and what was tried. */
export function failureMessage(rejected: readonly Rejection[]): string {
  const tried = rejected.map(({ origin, reason }) => `${origin}: ${reason}`).join('; ');
  return (
    `PyPTO: cannot start the language server. Install it with "${INSTALL_HINT}" into your Python ` +
    `environment, or set pypto.server.command or pypto.server.pythonPath. Tried ${tried}.`
  );
}

/** The warning logged when a configured way of starting the server was skipped. */
export function rejectionLine({ origin, reason }: Rejection): string {
  return `Not using ${origin}: ${reason}`;
}
