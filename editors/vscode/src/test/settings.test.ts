import * as assert from 'assert';

import { DEFAULTS, RESTART_KEYS, initializationOptions, readSettings, serverArguments, substitute } from '../settings';
import { manifest } from './manifest';

function from(values: Record<string, unknown>) {
    return readSettings((key) => values[key]);
}

describe('settings', () => {
    it('falls back to the defaults when nothing is set', () => {
        assert.deepStrictEqual(from({}), DEFAULTS);
    });

    it('treats values of the wrong type as unset', () => {
        const settings = from({ enable: 'no', debounceMs: '20', lintTimeoutMs: -5, logLevel: 'TRACE', path: [1, '', 'x'] });
        assert.strictEqual(settings.enable, true);
        assert.strictEqual(settings.debounceMs, 150);
        assert.strictEqual(settings.lintTimeoutMs, undefined);
        assert.strictEqual(settings.logLevel, 'WARNING');
        assert.deepStrictEqual(settings.path, ['x']);
    });

    it('accepts a single string where a command list is expected', () => {
        assert.deepStrictEqual(from({ interpreter: '/venv/bin/python' }).interpreter, ['/venv/bin/python']);
        assert.deepStrictEqual(from({ interpreter: '  ' }).interpreter, []);
    });

    it('maps to the initialization options server.py reads', () => {
        assert.deepStrictEqual(initializationOptions(from({})), { debounceMs: 150 });
        assert.deepStrictEqual(
            initializationOptions(from({ debounceMs: 0, ruleDocsUrl: ' https://x.org/{id}.html ', lintTimeoutMs: 5000 })),
            { debounceMs: 0, ruleDocsUrl: 'https://x.org/{id}.html', lintTimeoutMs: 5000 },
        );
        // 0 would time every lint out; the server ignores it, and so does the extension
        assert.deepStrictEqual(initializationOptions(from({ lintTimeoutMs: 0 })), { debounceMs: 150 });
    });

    it('passes the log level on the command line', () => {
        assert.deepStrictEqual(serverArguments(from({ logLevel: 'DEBUG' })), ['lsp', '--log-level', 'DEBUG']);
    });

    it('expands variables and the home folder', () => {
        const vars = { workspaceFolder: '/w', userHome: '/home/u' };
        assert.strictEqual(substitute('${workspaceFolder}/.venv/bin/python', vars), '/w/.venv/bin/python');
        assert.strictEqual(substitute('~/venv/bin/ptxlint', vars), '/home/u/venv/bin/ptxlint');
        assert.strictEqual(substitute('${userHome}/x', vars), '/home/u/x');
        assert.strictEqual(substitute('${env:VENV}/bin/python', vars, { VENV: '/v' }), '/v/bin/python');
        assert.strictEqual(substitute('a~b', vars), 'a~b');
        // no folder open: the placeholder stays, so the failure names it
        assert.strictEqual(substitute('${workspaceFolder}/x', { userHome: '/h' }), '${workspaceFolder}/x');
    });

    it('declares every setting it reads in package.json, with the same defaults', () => {
        const properties = manifest.contributes.configuration.properties;
        for (const [key, value] of Object.entries(DEFAULTS)) {
            const declared = properties[`ptxlint.${key}`];
            assert.ok(declared, `ptxlint.${key} is not in package.json`);
            const expected = value === undefined ? null : value;
            assert.deepStrictEqual(declared.default, expected, `default of ptxlint.${key}`);
        }
        for (const key of RESTART_KEYS) {
            assert.ok(properties[`ptxlint.${key}`], `restart key ptxlint.${key} is not in package.json`);
        }
    });
});
