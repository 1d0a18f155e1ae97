import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBundledLauncher, pythonNames, systemProbes } from '../src/common/probe';

/**
 * A scratch directory with a `bin/pypto-lsp` script, a non-executable file, a fake `pypto_lsp`
 * package, and `bin/python-bare`: python3 without site-packages, which cannot have the server.
 */
let root = '';
let bin = '';
let site = '';

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'pypto-probe-'));
  bin = path.join(root, 'bin');
  site = path.join(root, 'site');
  await mkdir(bin);
  await mkdir(path.join(site, 'pypto_lsp'), { recursive: true });
  await writeFile(path.join(bin, 'pypto-lsp'), '#!/bin/sh\n');
  await chmod(path.join(bin, 'pypto-lsp'), 0o755);
  await writeFile(path.join(bin, 'not-executable'), '');
  await writeFile(path.join(bin, 'python-bare'), '#!/bin/sh\nexec python3 -I -S "$@"\n');
  await chmod(path.join(bin, 'python-bare'), 0o755);
  await writeFile(path.join(site, 'pypto_lsp', '__init__.py'), '');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const systemPath = process.env['PATH'] ?? '';

describe('systemProbes', () => {
  it('finds an executable on PATH and by path (relative to the working directory), but not a plain file', async () => {
    const probes = systemProbes(root, { PATH: [bin, systemPath].join(path.delimiter) });
    expect(await probes.findExecutable('pypto-lsp')).toBe(path.join(bin, 'pypto-lsp'));
    expect(await probes.findExecutable(path.join(bin, 'pypto-lsp'))).toBe(path.join(bin, 'pypto-lsp'));
    expect(await probes.findExecutable(path.join('bin', 'pypto-lsp'))).toBe(path.join(bin, 'pypto-lsp'));
    expect(await probes.findExecutable(path.join(bin, 'not-executable'))).toBeUndefined();
    expect(await probes.findExecutable('not-executable')).toBeUndefined();
  });

  it('does not find pypto-lsp when PATH does not have it', async () => {
    expect(await systemProbes(root, { PATH: path.join(root, 'empty') }).findExecutable('pypto-lsp')).toBeUndefined();
  });

  it('asks an interpreter its version and whether it has the server module, and names a missing one', async () => {
    const probes = systemProbes(root, { PATH: systemPath, PYTHONPATH: site });
    const python3 = await probes.inspectPython('python3');
    const missing = path.join(root, 'no-python');
    expect(python3).toMatchObject({ hasServer: true });
    expect(typeof python3 === 'object' && python3.version.length).toBe(3);
    expect(await probes.inspectPython(path.join(bin, 'python-bare'))).toMatchObject({ hasServer: false });
    expect(await probes.inspectPython(missing)).toBe(`${missing} does not exist`);
    expect(await probes.inspectPython(path.join(bin, 'pypto-lsp'))).toMatch(/did not answer like a Python interpreter/);
  });
});

describe('findBundledLauncher and pythonNames', () => {
  it('finds bundled/tool/launch.py only where the bundled server is', async () => {
    const extension = path.join(root, 'extension');
    expect(await findBundledLauncher(extension)).toBeUndefined();
    await mkdir(path.join(extension, 'bundled', 'tool'), { recursive: true });
    await writeFile(path.join(extension, 'bundled', 'tool', 'launch.py'), '');
    expect(await findBundledLauncher(extension)).toBeUndefined(); // no libs/pypto_lsp
    await mkdir(path.join(extension, 'bundled', 'libs', 'pypto_lsp'), { recursive: true });
    await writeFile(path.join(extension, 'bundled', 'libs', 'pypto_lsp', '__init__.py'), '');
    expect(await findBundledLauncher(extension)).toBe(path.join(extension, 'bundled', 'tool', 'launch.py'));
  });

  it('looks for python3 then python, and on Windows python then py', () => {
    expect(pythonNames('linux')).toEqual(['python3', 'python']);
    expect(pythonNames('win32')).toEqual(['python', 'py']);
  });
});
