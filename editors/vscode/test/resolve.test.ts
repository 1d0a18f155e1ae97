import { describe, expect, it } from 'vitest';
import {
  failureMessage,
  resolveServerCommand,
  type Probes,
  type PythonInfo,
  type ResolutionInputs,
} from '../src/common/resolve';

const BUNDLE = '/ext/bundled/tool/launch.py';

/** A machine with the given executables (bare names -> path) and interpreters (path -> info). */
function machine(executables: Record<string, string>, interpreters: Record<string, PythonInfo | string>): Probes {
  return {
    findExecutable: async (name) =>
      executables[name] ?? (name.startsWith('/') && name in interpreters ? name : undefined),
    inspectPython: async (python) => interpreters[python] ?? `${python} does not exist`,
  };
}

const bare: PythonInfo = { version: [3, 11, 7], hasServer: false };
const withServer: PythonInfo = { version: [3, 12, 1], hasServer: true };

function inputs(overrides: Partial<ResolutionInputs> & { probes: Probes }): ResolutionInputs {
  return {
    settings: { command: [], pythonPath: '', importStrategy: 'useBundled' },
    activeInterpreter: async () => undefined,
    bundledLauncher: BUNDLE,
    pythonNames: ['python3', 'python'],
    ...overrides,
  };
}

describe('resolveServerCommand', () => {
  it('prefers pypto.server.command, passing its extra arguments through', async () => {
    const resolution = await resolveServerCommand(
      inputs({
        settings: { command: ['my-lsp', '--tcp'], pythonPath: '/venv/bin/python', importStrategy: 'useBundled' },
        probes: machine({ 'my-lsp': '/opt/bin/my-lsp' }, { '/venv/bin/python': withServer }),
      }),
    );
    expect(resolution).toEqual({
      ok: true,
      server: { command: 'my-lsp', args: ['--tcp'], origin: 'setting pypto.server.command' },
      rejected: [],
    });
  });

  it('runs the bundled server with python3 from PATH when nothing is configured', async () => {
    const resolution = await resolveServerCommand(
      inputs({ probes: machine({ python3: '/usr/bin/python3' }, { '/usr/bin/python3': bare }) }),
    );
    expect(resolution).toEqual({
      ok: true,
      server: { command: '/usr/bin/python3', args: [BUNDLE], origin: 'the bundled server, run by /usr/bin/python3' },
      rejected: [],
    });
  });

  it('takes pypto.server.pythonPath, then the Python extension, then PATH, skipping what is too old or missing', async () => {
    const probes = machine(
      { python3: '/usr/bin/python3', python: '/usr/bin/python' },
      { '/usr/bin/python3': { version: [3, 8, 10], hasServer: false }, '/usr/bin/python': bare, '/ext/python': bare },
    );
    const configured = inputs({
      settings: { command: ['missing-lsp'], pythonPath: '/nowhere/python', importStrategy: 'useBundled' },
      activeInterpreter: async () => '/ext/python',
      probes,
    });
    const viaExtension = await resolveServerCommand(configured);
    expect(viaExtension.ok && viaExtension.server.command).toBe('/ext/python');
    expect(viaExtension.rejected).toEqual([
      { origin: 'setting pypto.server.command', reason: 'missing-lsp is not an executable file or a program on PATH' },
      { origin: 'setting pypto.server.pythonPath', reason: '/nowhere/python does not exist' },
    ]);

    const viaPath = await resolveServerCommand({ ...configured, activeInterpreter: async () => undefined });
    expect(viaPath.ok && viaPath.server.command).toBe('/usr/bin/python');
    expect(viaPath.rejected.slice(2)).toEqual([
      { origin: 'python3 on PATH', reason: 'Python 3.8.10 is older than 3.10' },
    ]);
  });

  it('uses the bundled server even where pypto-lsp is installed, unless told fromEnvironment', async () => {
    const probes = machine({ 'pypto-lsp': '/usr/bin/pypto-lsp' }, { '/venv/bin/python': withServer });
    const settings = { command: [], pythonPath: '/venv/bin/python' } as const;
    const bundled = await resolveServerCommand(
      inputs({ settings: { ...settings, importStrategy: 'useBundled' }, probes }),
    );
    expect(bundled.ok && bundled.server.args).toEqual([BUNDLE]);
    const installed = await resolveServerCommand(
      inputs({ settings: { ...settings, importStrategy: 'fromEnvironment' }, probes }),
    );
    expect(installed.ok && installed.server).toEqual({
      command: '/venv/bin/python',
      args: ['-m', 'pypto_lsp'],
      origin: 'pypto-lsp installed for /venv/bin/python',
    });
  });

  it('fromEnvironment falls back to pypto-lsp on PATH, then to the bundled server', async () => {
    const settings = { command: [], pythonPath: '/venv/bin/python', importStrategy: 'fromEnvironment' } as const;
    const onPath = await resolveServerCommand(
      inputs({ settings, probes: machine({ 'pypto-lsp': '/usr/bin/pypto-lsp' }, { '/venv/bin/python': bare }) }),
    );
    expect(onPath.ok && onPath.server).toEqual({
      command: '/usr/bin/pypto-lsp',
      args: [],
      origin: 'pypto-lsp on PATH',
    });
    const bundled = await resolveServerCommand(inputs({ settings, probes: machine({}, { '/venv/bin/python': bare }) }));
    expect(bundled.ok && bundled.server.args).toEqual([BUNDLE]);
    expect(bundled.rejected.map((r) => r.origin)).toEqual([
      'pypto-lsp installed for /venv/bin/python',
      'pypto-lsp on PATH',
    ]);
  });

  it('a build without the bundle runs an installed server, or fails saying so', async () => {
    const settings = { command: [], pythonPath: '/venv/bin/python', importStrategy: 'useBundled' } as const;
    const installed = await resolveServerCommand(
      inputs({ settings, bundledLauncher: undefined, probes: machine({}, { '/venv/bin/python': withServer }) }),
    );
    expect(installed.ok && installed.server.args).toEqual(['-m', 'pypto_lsp']);
    const none = await resolveServerCommand(
      inputs({ settings, bundledLauncher: undefined, probes: machine({}, { '/venv/bin/python': bare }) }),
    );
    expect(none.ok).toBe(false);
    expect(!none.ok && none.failure).toBe('no-server');
    const message = failureMessage('no-server', none.rejected);
    expect(message).toContain('pip install <path to the pypto-lsp checkout>');
    expect(message).toContain('the bundled server: this build of the extension has none');
  });

  it('without a usable Python, says so, what was tried and what to set', async () => {
    const resolution = await resolveServerCommand(
      inputs({
        settings: { command: [], pythonPath: '/nowhere/python', importStrategy: 'useBundled' },
        probes: machine(
          { python3: '/usr/bin/python3' },
          { '/usr/bin/python3': { version: [2, 7, 18], hasServer: false } },
        ),
      }),
    );
    expect(resolution.ok).toBe(false);
    expect(!resolution.ok && resolution.failure).toBe('no-python');
    const message = failureMessage('no-python', resolution.rejected);
    expect(message).toMatch(/^PyPTO: no Python 3\.10 or newer was found to run the language server\./);
    expect(message).toContain('set pypto.server.pythonPath');
    expect(message).toContain(
      'Tried setting pypto.server.pythonPath: /nowhere/python does not exist; ' +
        'python3 on PATH: Python 2.7.18 is older than 3.10; python on PATH: not found.',
    );
    expect(message).not.toContain('pip install pypto-lsp'); // it is not on any registry
  });
});
