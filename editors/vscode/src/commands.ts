// The extension's commands: their ids (the same as package.json's `contributes.commands`), the
// decisions they make, and their registration against a small host interface, so that the
// wiring is unit-tested without an editor.

export const COMMANDS = {
    fixAll: 'ptxlint.fixAll',
    showRuleDocumentation: 'ptxlint.showRuleDocumentation',
    restart: 'ptxlint.restart',
    installServer: 'ptxlint.installServer',
    showOutput: 'ptxlint.showOutput',
} as const;

export type CommandName = keyof typeof COMMANDS;
export type Handlers = Record<CommandName, (...args: unknown[]) => unknown>;

/** The code action kind of the server's fix-all (ptxlint/lsp/actions.py, FIX_ALL_KIND). */
export const FIX_ALL_KIND = 'source.fixAll.ptxlint';
/** Diagnostics' `source` as the server sets it. */
export const DIAGNOSTIC_SOURCE = 'ptxlint';

export interface Disposable {
    dispose(): unknown;
}

export interface CommandHost {
    registerCommand(id: string, handler: (...args: unknown[]) => unknown): Disposable;
}

export function registerCommands(host: CommandHost, handlers: Handlers): Disposable[] {
    return (Object.keys(COMMANDS) as CommandName[]).map((name) => host.registerCommand(COMMANDS[name], handlers[name]));
}

// ------------------------------------------------------------------ show rule documentation

export interface DiagnosticLike {
    source?: string;
    code?: string | number | { value: string | number; target?: unknown };
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export interface PositionLike {
    line: number;
    character: number;
}

function codeOf(diagnostic: DiagnosticLike): string | undefined {
    const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
    return code === undefined ? undefined : String(code);
}

function contains(range: DiagnosticLike['range'], at: PositionLike): boolean {
    const after = at.line > range.start.line || (at.line === range.start.line && at.character >= range.start.character);
    const before = at.line < range.end.line || (at.line === range.end.line && at.character <= range.end.character);
    return after && before;
}

/**
 * The rule ids of ptxlint's diagnostics under the cursor, else on its line; in the order shown,
 * each once. Other servers' diagnostics (clangd's, Pylance's) are never taken for a rule.
 */
export function ruleIdsAt(diagnostics: readonly DiagnosticLike[], at: PositionLike): string[] {
    const ours = diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && codeOf(d) !== undefined);
    const under = ours.filter((d) => contains(d.range, at));
    const chosen = under.length > 0 ? under : ours.filter((d) => d.range.start.line <= at.line && at.line <= d.range.end.line);
    return [...new Set(chosen.map((d) => codeOf(d) as string))];
}

/** A rule id or name as typed or passed by another extension; undefined when it cannot be one. */
export function normalizeRuleId(value: unknown): string | undefined {
    if (typeof value !== 'string') {
        return undefined;
    }
    const text = value.trim();
    if (/^ptx\d+$/i.test(text)) {
        return text.toUpperCase();
    }
    // names are kebab-case words (missing-volatile); anything else would be an option to the CLI
    return /^[a-z][a-z0-9-]*$/i.test(text) ? text : undefined;
}

/** `ptxlint rule ID`, run the way the server runs. */
export function ruleDocumentationCommand(ptxlint: readonly string[], ruleId: string): string[] {
    return [...ptxlint, 'rule', ruleId];
}

// ------------------------------------------------------------------ fix all

export interface CodeActionLike {
    title: string;
    kind?: { value: string };
    edit?: unknown;
}

/** The server's fix-all among the code actions offered for a document. */
export function pickFixAll<T extends CodeActionLike>(actions: readonly T[] | undefined): T | undefined {
    return (actions ?? []).find((action) => action.kind?.value === FIX_ALL_KIND && action.edit !== undefined);
}
