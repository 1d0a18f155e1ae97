import { execFile } from 'node:child_process';
import { access, constants, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { SERVER_MODULE, type Probes } from './resolve';

/** Long enough for a cold interpreter start on a slow disk, short enough not to hang activation. */
const PROBE_TIMEOUT_MS = 15_000;

/** Checks for the module without importing it, so a broken install cannot run code here. */
const FIND_SPEC_SCRIPT = `import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(${JSON.stringify(SERVER_MODULE)}) else 3)`;
const MODULE_MISSING_EXIT = 3;

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

    whyCannotRunModule(python) {
      return new Promise((resolve) => {
        execFile(python, ['-c', FIND_SPEC_SCRIPT], { cwd, env, timeout: PROBE_TIMEOUT_MS }, (error) => {
          if (error === null) {
            resolve(undefined);
          } else if (error.code === MODULE_MISSING_EXIT) {
            resolve(`${SERVER_MODULE} is not installed for ${python}`);
          } else if (error.code === 'ENOENT') {
            resolve(`${python} does not exist`);
          } else {
            resolve(`${python} failed: ${error.message.trim()}`);
          }
        });
      });
    },
  };
}
