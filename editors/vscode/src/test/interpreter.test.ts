import * as assert from 'assert';

import { PROBE_SCRIPT, offerFor, pipInstallCommand, readProbe, resolveServer } from '../interpreter';
import { readSettings } from '../settings';
import { manifest } from './manifest';

const vars = { workspaceFolder: '/w', userHome: '/home/u' };
const settings = (values: Record<string, unknown>) => readSettings((key) => values[key]);

describe('server command', () => {
    it('prefers ptxlint.path over everything', () => {
        const command = resolveServer(settings({ path: ['~/bin/ptxlint', '--isolated'], interpreter: ['/py'] }), ['/ext/python'], vars, 'linux');
        assert.strictEqual(command.command, '/home/u/bin/ptxlint');
        assert.deepStrictEqual(command.args, ['--isolated', 'lsp', '--log-level', 'WARNING']);
        assert.strictEqual(command.source, 'path');
        assert.strictEqual(command.python, undefined);
        assert.deepStrictEqual(command.ptxlint, ['/home/u/bin/ptxlint', '--isolated']);
    });

    it('then ptxlint.interpreter, run as -m ptxlint', () => {
        const command = resolveServer(settings({ interpreter: ['${workspaceFolder}/.venv/bin/python'] }), ['/ext/python'], vars, 'linux');
        assert.strictEqual(command.command, '/w/.venv/bin/python');
        assert.deepStrictEqual(command.args, ['-m', 'ptxlint', 'lsp', '--log-level', 'WARNING']);
        assert.strictEqual(command.source, 'interpreter');
        assert.deepStrictEqual(command.python, ['/w/.venv/bin/python']);
    });

    it('then the Python extension\'s environment', () => {
        const command = resolveServer(settings({}), ['/ext/python'], vars, 'linux');
        assert.strictEqual(command.command, '/ext/python');
        assert.strictEqual(command.source, 'python-extension');
        assert.deepStrictEqual(command.ptxlint, ['/ext/python', '-m', 'ptxlint']);
    });

    it('then python3 on PATH (python on Windows)', () => {
        assert.strictEqual(resolveServer(settings({}), undefined, vars, 'linux').command, 'python3');
        assert.strictEqual(resolveServer(settings({}), [], vars, 'darwin').command, 'python3');
        assert.strictEqual(resolveServer(settings({}), undefined, vars, 'win32').command, 'python');
        assert.strictEqual(resolveServer(settings({}), undefined, vars, 'linux').source, 'default');
    });

    it('keeps an interpreter\'s own arguments before -m', () => {
        const command = resolveServer(settings({ interpreter: ['py', '-3.12'] }), undefined, vars, 'win32');
        assert.deepStrictEqual([command.command, ...command.args].slice(0, 4), ['py', '-3.12', '-m', 'ptxlint']);
        assert.deepStrictEqual(pipInstallCommand(command.python ?? []), ['py', '-3.12', '-m', 'pip', 'install', 'ptxlint[lsp]']);
    });

    it('lets an untrusted workspace name neither executable', () => {
        const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
        assert.deepStrictEqual([...restricted].sort(), ['ptxlint.interpreter', 'ptxlint.path']);
        for (const key of restricted) {
            assert.strictEqual(manifest.contributes.configuration.properties[key].scope, 'machine-overridable');
        }
    });
});

describe('probe', () => {
    it('reads a ready environment', () => {
        const result = readProbe(null, '{"version": "0.1.0", "lsp": true, "executable": "/v/bin/python"}\n');
        assert.deepStrictEqual(result, { state: 'ready', version: '0.1.0', executable: '/v/bin/python' });
    });

    it('tells a missing ptxlint from a missing lsp extra', () => {
        assert.strictEqual(readProbe(null, '{"version": null, "lsp": true, "executable": "/p"}').state, 'no-ptxlint');
        assert.strictEqual(readProbe(null, '{"version": "0.1.0", "lsp": false, "executable": "/p"}').state, 'no-lsp');
    });

    it('reports an interpreter that does not run', () => {
        const result = readProbe({ code: 'ENOENT', message: 'spawn /nope ENOENT' }, '');
        assert.strictEqual(result.state, 'no-python');
        assert.match(result.detail ?? '', /ENOENT/);
        assert.strictEqual(readProbe(null, 'Python 2 says hello').state, 'no-python');
    });

    it('keeps the last line (site-packages may print before it)', () => {
        assert.strictEqual(readProbe(null, 'noise\n{"version": "1", "lsp": true, "executable": "/p"}').state, 'ready');
    });

    it('is a script python -c can run', () => {
        assert.ok(!PROBE_SCRIPT.includes("'"), 'single quotes would break copy-paste into a shell');
        assert.match(PROBE_SCRIPT, /find_spec/);
    });
});

describe('install offer', () => {
    it('offers pip only when asked to and where an interpreter runs', () => {
        const missing = { state: 'no-ptxlint' as const, executable: '/v/bin/python' };
        const offer = offerFor(missing, ['/v/bin/python'], true);
        assert.ok(offer);
        assert.deepStrictEqual(offer.actions, ['install', 'selectInterpreter', 'dontAskAgain']);
        assert.match(offer.message, /not installed in \/v\/bin\/python.*ptxlint\[lsp\]/);

        assert.ok(!offerFor(missing, ['/v/bin/python'], false)?.actions.includes('install'));
        const broken = offerFor({ state: 'no-python', detail: 'ENOENT' }, ['/nope'], true);
        assert.strictEqual(broken?.severity, 'error');
        assert.ok(!broken?.actions.includes('install'));
        assert.strictEqual(offerFor({ state: 'ready', version: '1', executable: '/p' }, ['/p'], true), undefined);
    });

    it('names the missing packages when only the extra is missing', () => {
        const offer = offerFor({ state: 'no-lsp', version: '0.1.0', executable: '/p' }, ['/p'], true);
        assert.match(offer?.message ?? '', /ptxlint 0\.1\.0 .*pygls/);
    });
});

describe('probe against a real interpreter', function () {
    // PTXLINT_TEST_PYTHON: the interpreter the project's tests run under (set by
    // tests/test_vscode_extension.py), which has ptxlint[lsp]; else whatever python3 is here.
    const python = process.env.PTXLINT_TEST_PYTHON;

    it('runs and is read', async function () {
        const { execFile } = await import('child_process');
        const interpreter = python ?? 'python3';
        const answer = await new Promise<{ error: Error | null; stdout: string }>((resolve) =>
            execFile(interpreter, ['-c', PROBE_SCRIPT], { timeout: 30000 }, (error, stdout) => resolve({ error, stdout })),
        );
        const result = readProbe(answer.error, answer.stdout);
        if (python) {
            assert.strictEqual(result.state, 'ready', JSON.stringify(result));
            assert.match(result.version ?? '', /^\d+\.\d+/);
        } else if (result.state === 'no-python') {
            this.skip();
        } else {
            assert.ok(result.executable, JSON.stringify(result));
        }
    });

    it('calls a missing interpreter no-python', async () => {
        const { execFile } = await import('child_process');
        const answer = await new Promise<{ error: Error | null; stdout: string }>((resolve) =>
            execFile('/nonexistent/python', ['-c', PROBE_SCRIPT], (error, stdout) => resolve({ error, stdout })),
        );
        assert.strictEqual(readProbe(answer.error, answer.stdout).state, 'no-python');
    });
});
