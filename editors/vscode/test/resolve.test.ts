import { describe, expect, it } from 'vitest';
import { failureMessage, resolveServerCommand, type Probes, type ResolutionInputs } from '../src/common/resolve';

/** A machine with the given executables and interpreters that can (or cannot) run the server. */
function machine(executables: Record<string, string>, interpreters: Record<string, string | undefined>): Probes {
  return {
    findExecutable: async (name) => executables[name],
    whyCannotRunModule: async (python) => (python in interpreters ? interpreters[python] : `${python} does not exist`),
  };
}

function inputs(overrides: Partial<ResolutionInputs> & { probes: Probes }): ResolutionInputs {
  return {
    settings: { command: [], pythonPath: '' },
    activeInterpreter: async () => undefined,
    ...overrides,
  };
}

const everything = machine(
  { 'my-lsp': '/opt/bin/my-lsp', 'pypto-lsp': '/usr/bin/pypto-lsp' },
  { '/venv/bin/python': undefined, '/ext/python': undefined },
);

describe('resolveServerCommand', () => {
  it('prefers pypto.server.command, passing its extra arguments through', async () => {
    const resolution = await resolveServerCommand(
      inputs({
        settings: { command: ['my-lsp', '--tcp'], pythonPath: '/venv/bin/python' },
        activeInterpreter: async () => '/ext/python',
        probes: everything,
      }),
    );
    expect(resolution).toEqual({
      ok: true,
      server: { command: 'my-lsp', args: ['--tcp'], origin: 'setting pypto.server.command' },
      rejected: [],
    });
  });

  it('runs the module with pypto.server.pythonPath when no command is set', async () => {
    const resolution = await resolveServerCommand(
      inputs({
        settings: { command: [], pythonPath: '/venv/bin/python' },
        activeInterpreter: async () => '/ext/python',
        probes: everything,
      }),
    );
    expect(resolution.ok && resolution.server).toEqual({
      command: '/venv/bin/python',
      args: ['-m', 'pypto_lsp'],
      origin: 'setting pypto.server.pythonPath',
    });
  });

  it("uses the Python extension's interpreter before PATH", async () => {
    const resolution = await resolveServerCommand(
      inputs({ activeInterpreter: async () => '/ext/python', probes: everything }),
    );
    expect(resolution.ok && resolution.server.command).toBe('/ext/python');
    expect(resolution.ok && resolution.server.args).toEqual(['-m', 'pypto_lsp']);
  });

  it('falls back to pypto-lsp on PATH, reporting every candidate that did not work', async () => {
    const probes = machine(
      { 'pypto-lsp': '/usr/bin/pypto-lsp' },
      {
        '/venv/bin/python': 'pypto_lsp is not installed for /venv/bin/python',
        '/ext/python': 'pypto_lsp is not installed for /ext/python',
      },
    );
    const resolution = await resolveServerCommand(
      inputs({
        settings: { command: ['missing-lsp'], pythonPath: '/venv/bin/python' },
        activeInterpreter: async () => '/ext/python',
        probes,
      }),
    );
    expect(resolution.ok && resolution.server).toEqual({
      command: '/usr/bin/pypto-lsp',
      args: [],
      origin: 'pypto-lsp on PATH',
    });
    expect(resolution.rejected.map((rejection) => rejection.origin)).toEqual([
      'setting pypto.server.command',
      'setting pypto.server.pythonPath',
      "the Python extension's interpreter /ext/python",
    ]);
  });

  it('fails with what was tried when nothing works, and says what to install', async () => {
    const resolution = await resolveServerCommand(
      inputs({ settings: { command: [], pythonPath: '/nowhere/python' }, probes: machine({}, {}) }),
    );
    expect(resolution.ok).toBe(false);
    const message = failureMessage(resolution.rejected);
    expect(message).toContain('pip install pypto-lsp');
    expect(message).toContain('setting pypto.server.pythonPath: /nowhere/python does not exist');
    expect(message).toContain('pypto-lsp on PATH: not found');
  });
});
