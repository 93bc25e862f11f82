// Which process is the server, and whether the chosen Python environment can run it. No `vscode`
// import: the order of precedence and the probe's reading are unit-tested.

import { Settings, Substitutions, serverArguments, substitute } from './settings';

/** Where the server command came from, in order of precedence. */
export type ServerSource = 'path' | 'interpreter' | 'python-extension' | 'default';

export interface ServerCommand {
    command: string;
    args: string[];
    source: ServerSource;
    /** The interpreter (with its leading arguments) that runs the server; undefined for `path`. */
    python: string[] | undefined;
    /** How to run other ptxlint commands (`rule ID`) the same way the server runs. */
    ptxlint: string[];
}

export function defaultPython(platform: NodeJS.Platform): string {
    // Windows' python.org installer puts `python` (not `python3`) on PATH.
    return platform === 'win32' ? 'python' : 'python3';
}

/**
 * The server command: `ptxlint.path`, else `ptxlint.interpreter`, else the Python extension's
 * selected environment, else `python3` on PATH.
 */
export function resolveServer(
    settings: Settings,
    pythonFromExtension: string[] | undefined,
    vars: Substitutions,
    platform: NodeJS.Platform = process.platform,
): ServerCommand {
    const expand = (items: string[]) => items.map((item) => substitute(item, vars));
    const args = serverArguments(settings);
    if (settings.path.length > 0) {
        const ptxlint = expand(settings.path);
        return {
            command: ptxlint[0],
            args: [...ptxlint.slice(1), ...args],
            source: 'path',
            python: undefined,
            ptxlint,
        };
    }
    let python: string[];
    let source: ServerSource;
    if (settings.interpreter.length > 0) {
        python = expand(settings.interpreter);
        source = 'interpreter';
    } else if (pythonFromExtension && pythonFromExtension.length > 0) {
        python = pythonFromExtension;
        source = 'python-extension';
    } else {
        python = [defaultPython(platform)];
        source = 'default';
    }
    const ptxlint = [...python, '-m', 'ptxlint'];
    return { command: python[0], args: [...ptxlint.slice(1), ...args], source, python, ptxlint };
}

// Prints one JSON line; finds the packages without importing pygls (slow) and never fails.
export const PROBE_SCRIPT = [
    'import importlib.util as u, json, sys',
    'try:',
    '    import ptxlint',
    '    v = getattr(ptxlint, "__version__", "unknown")',
    'except Exception:',
    '    v = None',
    'print(json.dumps({"version": v, "lsp": all(u.find_spec(m) is not None for m in ("pygls", "lsprotocol")), "executable": sys.executable}))',
].join('\n');

export type ProbeState = 'ready' | 'no-ptxlint' | 'no-lsp' | 'no-python';

export interface ProbeResult {
    state: ProbeState;
    version?: string;
    executable?: string;
    detail?: string;
}

/** The probe's answer, from its exit error (if any) and standard output. */
export function readProbe(error: { code?: unknown; message: string } | null, stdout: string): ProbeResult {
    const line = stdout.trim().split(/\r?\n/).pop() ?? '';
    let parsed: { version?: unknown; lsp?: unknown; executable?: unknown } | undefined;
    try {
        parsed = JSON.parse(line);
    } catch {
        parsed = undefined;
    }
    if (!parsed || typeof parsed !== 'object') {
        // ENOENT (no such interpreter), or something that is not a Python 3 the script runs on
        return { state: 'no-python', detail: error?.message ?? `unexpected output: ${line.slice(0, 200)}` };
    }
    const executable = typeof parsed.executable === 'string' ? parsed.executable : undefined;
    if (typeof parsed.version !== 'string') {
        return { state: 'no-ptxlint', executable };
    }
    return { state: parsed.lsp === true ? 'ready' : 'no-lsp', version: parsed.version, executable };
}

/** The requirement pip installs when the server is missing. */
export const INSTALL_REQUIREMENT = 'ptxlint[lsp]';

export function pipInstallCommand(python: string[]): string[] {
    // `--upgrade` would replace an editable or pinned ptxlint; without it pip adds only what is
    // missing (pygls and lsprotocol when ptxlint itself is there).
    return [...python, '-m', 'pip', 'install', INSTALL_REQUIREMENT];
}

export type OfferAction = 'install' | 'selectInterpreter' | 'openSettings' | 'dontAskAgain';

export interface Offer {
    severity: 'warning' | 'error';
    message: string;
    actions: OfferAction[];
}

/**
 * What to tell the user when the probe finds no usable server; undefined when it is ready. The
 * install action is offered only where pip would run in a known environment: never for an
 * interpreter that does not start, never when the user turned the prompt off.
 */
export function offerFor(probe: ProbeResult, python: readonly string[], installPrompt: boolean): Offer | undefined {
    const where = probe.executable ?? python.join(' ');
    switch (probe.state) {
        case 'ready':
            return undefined;
        case 'no-python':
            return {
                severity: 'error',
                message: `ptxlint: cannot run the Python interpreter '${python.join(' ')}' (${probe.detail ?? 'no answer'}). Select a Python environment or set ptxlint.interpreter.`,
                actions: ['selectInterpreter', 'openSettings'],
            };
        case 'no-ptxlint':
        case 'no-lsp': {
            const what =
                probe.state === 'no-ptxlint'
                    ? `ptxlint is not installed in ${where}.`
                    : `ptxlint ${probe.version ?? ''} in ${where} lacks the language server's packages (pygls, lsprotocol).`;
            if (!installPrompt) {
                return { severity: 'warning', message: what, actions: ['selectInterpreter', 'openSettings'] };
            }
            return {
                severity: 'warning',
                message: `${what} Install ${INSTALL_REQUIREMENT} there with pip?`,
                // three buttons: a fourth is cut to "Open Se..." in the notification
                actions: ['install', 'selectInterpreter', 'dontAskAgain'],
            };
        }
    }
}

export const OFFER_LABELS: Record<OfferAction, string> = {
    install: `Install ${INSTALL_REQUIREMENT}`,
    selectInterpreter: 'Select Interpreter',
    openSettings: 'Open Settings',
    dontAskAgain: "Don't Ask Again",
};
