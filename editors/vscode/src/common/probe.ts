import { execFile } from 'node:child_process';
import { access, constants, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { SERVER_MODULE, type Probes } from './resolve';

/** Long enough for a cold interpreter start on a slow disk, short enough not to hang activation. */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Asks an interpreter for its version and whether it has the server, without importing the
 * server (a broken install cannot run code here). Written so that a Python 2 `python` on PATH
 * answers too, and is then turned down for its version.
 */
const INSPECT_SCRIPT = [
  'import json, sys',
  'has = None',
  'if sys.version_info >= (3, 4):',
  '    import importlib.util',
  `    has = importlib.util.find_spec(${JSON.stringify(SERVER_MODULE)}) is not None`,
  'print(json.dumps({"version": list(sys.version_info[:3]), "hasServer": has}))',
].join('\n');

/** The inspect script's answer; `hasServer` is null for a Python too old to look. */
interface InspectAnswer {
  readonly version: number[];
  readonly hasServer: boolean | null;
}

function isInspectAnswer(value: unknown): value is InspectAnswer {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const info = value as Record<string, unknown>;
  return (
    Array.isArray(info['version']) &&
    info['version'].every((part) => typeof part === 'number') &&
    (typeof info['hasServer'] === 'boolean' || info['hasServer'] === null)
  );
}

/** The launcher of the server bundled in the extension at `extensionPath`, if this build has one. */
export async function findBundledLauncher(extensionPath: string): Promise<string | undefined> {
  const launcher = path.join(extensionPath, 'bundled', 'tool', 'launch.py');
  try {
    await stat(path.join(extensionPath, 'bundled', 'libs', SERVER_MODULE, '__init__.py'));
    await stat(launcher);
    return launcher;
  } catch {
    return undefined;
  }
}

/** Interpreter names to look for on PATH, in order. */
export function pythonNames(platform: NodeJS.Platform = process.platform): readonly string[] {
  return platform === 'win32' ? ['python', 'py'] : ['python3', 'python'];
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const info = await stat(file);
    if (!info.isFile()) {
      return false;
    }
    await access(file, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Names to try for `name` in one directory: Windows finds `pypto-lsp.exe` for `pypto-lsp`. */
function candidateNames(name: string, env: NodeJS.ProcessEnv): string[] {
  if (process.platform !== 'win32') {
    return [name];
  }
  const extensions = (env['PATHEXT'] ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((ext) => ext !== '');
  return [name, ...extensions.map((ext) => name + ext.toLowerCase())];
}

/**
 * Probes that look at the real file system and run the real interpreter, in `cwd`: the server's
 * own working directory, since `python -c` and `python -m` both import from there first.
 */
export function systemProbes(cwd: string, env: NodeJS.ProcessEnv = process.env): Probes {
  return {
    async findExecutable(name) {
      if (name.includes('/') || name.includes(path.sep)) {
        const file = path.resolve(cwd, name);
        return (await isExecutableFile(file)) ? file : undefined;
      }
      for (const dir of (env['PATH'] ?? '').split(path.delimiter).filter((entry) => entry !== '')) {
        for (const candidate of candidateNames(name, env)) {
          const file = path.join(dir, candidate);
          if (await isExecutableFile(file)) {
            return file;
          }
        }
      }
      return undefined;
    },

    inspectPython(python) {
      return new Promise((resolve) => {
        execFile(python, ['-c', INSPECT_SCRIPT], { cwd, env, timeout: PROBE_TIMEOUT_MS }, (error, stdout) => {
          if (error !== null) {
            resolve(error.code === 'ENOENT' ? `${python} does not exist` : `${python} failed: ${error.message.trim()}`);
            return;
          }
          let answer: unknown;
          try {
            answer = JSON.parse(stdout);
          } catch {
            answer = undefined;
          }
          if (isInspectAnswer(answer)) {
            resolve({ version: answer.version, hasServer: answer.hasServer === true });
          } else {
            resolve(`${python} did not answer like a Python interpreter: ${stdout.trim().slice(0, 200)}`);
          }
        });
      });
    },
  };
}
