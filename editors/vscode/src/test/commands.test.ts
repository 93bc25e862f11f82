import * as assert from 'assert';

import {
    COMMANDS,
    CommandName,
    FIX_ALL_KIND,
    Handlers,
    normalizeRuleId,
    pickFixAll,
    registerCommands,
    ruleDocumentationCommand,
    ruleIdsAt,
} from '../commands';
import { manifest } from './manifest';

const range = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });

describe('command wiring', () => {
    it('registers exactly the commands package.json contributes', () => {
        const registered = new Map<string, (...args: unknown[]) => unknown>();
        const disposed: string[] = [];
        const calls: string[] = [];
        const handlers = Object.fromEntries(
            (Object.keys(COMMANDS) as CommandName[]).map((name) => [name, () => calls.push(name)]),
        ) as unknown as Handlers;
        const disposables = registerCommands(
            {
                registerCommand(id, handler) {
                    assert.ok(!registered.has(id), `${id} registered twice`);
                    registered.set(id, handler);
                    return { dispose: () => disposed.push(id) };
                },
            },
            handlers,
        );
        const contributed = manifest.contributes.commands.map((c) => c.command).sort();
        assert.deepStrictEqual([...registered.keys()].sort(), contributed);
        // each id runs its own handler
        for (const name of Object.keys(COMMANDS) as CommandName[]) {
            registered.get(COMMANDS[name])?.();
            assert.strictEqual(calls[calls.length - 1], name);
        }
        disposables.forEach((d) => d.dispose());
        assert.deepStrictEqual(disposed.sort(), contributed);
    });

    it('activates on every language the server lints', () => {
        for (const language of ['cuda-cpp', 'cpp', 'c', 'python']) {
            assert.ok(manifest.activationEvents.includes(`onLanguage:${language}`), language);
        }
        assert.strictEqual(manifest.main, './out/src/extension.js');
    });
});

describe('rule documentation', () => {
    const diagnostics = [
        { source: 'clangd', code: 'unused-variable', range: range(3, 0, 10) },
        { source: 'ptxlint', code: { value: 'PTX101', target: 'file:///x' }, range: range(3, 12, 18) },
        { source: 'ptxlint', code: 'PTX008', range: range(3, 12, 18) },
        { source: 'ptxlint', code: 'PTX001', range: range(3, 25, 27) },
        { source: 'ptxlint', code: 'PTX004', range: range(5, 0, 4) },
    ];

    it('takes the ptxlint diagnostics under the cursor', () => {
        assert.deepStrictEqual(ruleIdsAt(diagnostics, { line: 3, character: 14 }), ['PTX101', 'PTX008']);
        assert.deepStrictEqual(ruleIdsAt(diagnostics, { line: 3, character: 26 }), ['PTX001']);
    });

    it('falls back to the cursor\'s line, never to another server\'s codes', () => {
        assert.deepStrictEqual(ruleIdsAt(diagnostics, { line: 3, character: 5 }), ['PTX101', 'PTX008', 'PTX001']);
        assert.deepStrictEqual(ruleIdsAt(diagnostics, { line: 9, character: 0 }), []);
        assert.deepStrictEqual(ruleIdsAt(diagnostics.slice(0, 1), { line: 3, character: 2 }), []);
    });

    it('accepts ids and names, nothing that could be an option', () => {
        assert.strictEqual(normalizeRuleId(' ptx101 '), 'PTX101');
        assert.strictEqual(normalizeRuleId('missing-volatile'), 'missing-volatile');
        assert.strictEqual(normalizeRuleId('--help'), undefined);
        assert.strictEqual(normalizeRuleId('PTX101; rm -rf /'), undefined);
        assert.strictEqual(normalizeRuleId(101), undefined);
        assert.strictEqual(normalizeRuleId(undefined), undefined);
    });

    it('runs `ptxlint rule ID` the way the server runs', () => {
        assert.deepStrictEqual(ruleDocumentationCommand(['/v/bin/python', '-m', 'ptxlint'], 'PTX101'), [
            '/v/bin/python',
            '-m',
            'ptxlint',
            'rule',
            'PTX101',
        ]);
    });
});

describe('fix all', () => {
    it('picks the server\'s fix-all action, with its edit', () => {
        const quickFix = { title: 'Add volatile', kind: { value: 'quickfix' }, edit: {} };
        const other = { title: 'Fix all (ruff)', kind: { value: 'source.fixAll.ruff' }, edit: {} };
        const ours = { title: 'ptxlint: fix all', kind: { value: FIX_ALL_KIND }, edit: { changes: 1 } };
        assert.strictEqual(pickFixAll([quickFix, other, ours]), ours);
        assert.strictEqual(pickFixAll([quickFix, other]), undefined);
        assert.strictEqual(pickFixAll([{ ...ours, edit: undefined }]), undefined);
        assert.strictEqual(pickFixAll(undefined), undefined);
    });
});
