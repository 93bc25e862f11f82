// The extension's settings and what they become for the server. No `vscode` import here, so the
// mapping is unit-tested without an editor.

export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';
export const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARNING', 'ERROR'];

export interface Settings {
    enable: boolean;
    /** A ptxlint executable (and arguments placed before `lsp`); empty: not set. */
    path: string[];
    /** A Python interpreter (and arguments placed before `-m ptxlint`); empty: not set. */
    interpreter: string[];
    debounceMs: number;
    /** undefined: the server's own default. */
    lintTimeoutMs: number | undefined;
    ruleDocsUrl: string;
    logLevel: LogLevel;
    installPrompt: boolean;
}

export const DEFAULTS: Settings = {
    enable: true,
    path: [],
    interpreter: [],
    debounceMs: 150,
    lintTimeoutMs: undefined,
    ruleDocsUrl: '',
    logLevel: 'WARNING',
    installPrompt: true,
};

/** What the server reads from `initializationOptions` (ptxlint/lsp/server.py, `start`). */
export interface InitializationOptions {
    debounceMs: number;
    ruleDocsUrl?: string;
    lintTimeoutMs?: number;
}

/** The variables `${...}` in `path`/`interpreter` may name. */
export interface Substitutions {
    workspaceFolder?: string;
    userHome: string;
}

// settings.json is hand-edited: a wrong type is treated as "not set" rather than trusted, so that
// the server never receives, say, a string where pygls's handler expects a number.
function stringList(value: unknown): string[] {
    if (typeof value === 'string') {
        return value.trim() ? [value] : [];
    }
    if (!Array.isArray(value)) {
        return [];
    }
    return value.filter((item): item is string => typeof item === 'string' && item.trim() !== '');
}

function nonNegative(value: unknown): number | undefined {
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Settings from a getter over the `ptxlint` section (`WorkspaceConfiguration.get`). */
export function readSettings(get: (key: string) => unknown): Settings {
    const logLevel = get('logLevel');
    const timeout = nonNegative(get('lintTimeoutMs'));
    return {
        enable: typeof get('enable') === 'boolean' ? (get('enable') as boolean) : DEFAULTS.enable,
        path: stringList(get('path')),
        interpreter: stringList(get('interpreter')),
        debounceMs: nonNegative(get('debounceMs')) ?? DEFAULTS.debounceMs,
        // the server ignores 0 (it would time every lint out), so 0 means "the default" here too
        lintTimeoutMs: timeout === 0 ? undefined : timeout,
        ruleDocsUrl: typeof get('ruleDocsUrl') === 'string' ? (get('ruleDocsUrl') as string).trim() : '',
        logLevel: LOG_LEVELS.includes(logLevel as LogLevel) ? (logLevel as LogLevel) : DEFAULTS.logLevel,
        installPrompt:
            typeof get('installPrompt') === 'boolean' ? (get('installPrompt') as boolean) : DEFAULTS.installPrompt,
    };
}

export function initializationOptions(settings: Settings): InitializationOptions {
    const options: InitializationOptions = { debounceMs: settings.debounceMs };
    // Left out when unset: the server then falls back to PTXLINT_RULE_DOCS_URL and its own pages.
    if (settings.ruleDocsUrl) {
        options.ruleDocsUrl = settings.ruleDocsUrl;
    }
    if (settings.lintTimeoutMs !== undefined) {
        options.lintTimeoutMs = settings.lintTimeoutMs;
    }
    return options;
}

/** The arguments after the server command (`ptxlint` or `python -m ptxlint`). */
export function serverArguments(settings: Settings): string[] {
    return ['lsp', '--log-level', settings.logLevel];
}

/** Expand `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~`. */
export function substitute(value: string, vars: Substitutions, env: NodeJS.ProcessEnv = process.env): string {
    let result = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name, envName) => {
        if (envName !== undefined) {
            return env[envName] ?? '';
        }
        if (name === 'userHome') {
            return vars.userHome;
        }
        // Without a folder open, leave the placeholder: a path that names it then fails visibly.
        return vars.workspaceFolder ?? whole;
    });
    if (result === '~' || result.startsWith('~/') || result.startsWith('~\\')) {
        result = vars.userHome + result.slice(1);
    }
    return result;
}

/** Settings whose change needs a new server process (initialization options and command). */
export const RESTART_KEYS: readonly string[] = [
    'enable',
    'path',
    'interpreter',
    'debounceMs',
    'lintTimeoutMs',
    'ruleDocsUrl',
    'logLevel',
];
