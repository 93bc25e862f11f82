// The VS Code side: starts `ptxlint lsp` through vscode-languageclient and wires the commands.
// Decisions (settings, the server command, prompts, which rule or action) live in the pure
// modules next to this one, where they are unit-tested.

import { execFile, spawn } from 'child_process';
import * as os from 'os';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions } from 'vscode-languageclient/node';

import {
    FIX_ALL_KIND,
    normalizeRuleId,
    pickFixAll,
    registerCommands,
    ruleDocumentationCommand,
    ruleIdsAt,
} from './commands';
import {
    OFFER_LABELS,
    OfferAction,
    PROBE_SCRIPT,
    ProbeResult,
    ServerCommand,
    offerFor,
    pipInstallCommand,
    readProbe,
    resolveServer,
} from './interpreter';
import { RESTART_KEYS, Settings, initializationOptions, readSettings } from './settings';

const LANGUAGES = ['cuda-cpp', 'cuda', 'cpp', 'c', 'python'];
const RULE_SCHEME = 'ptxlint-rule';
const PROBE_TIMEOUT_MS = 30_000;

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let current: ServerCommand | undefined;
// Starts and stops run one after another: a settings change during a start would otherwise
// leave two servers linting the same files.
let queue: Promise<void> = Promise.resolve();

function settings(): Settings {
    const section = vscode.workspace.getConfiguration('ptxlint');
    return readSettings((key) => section.get(key));
}

function firstFolder(): vscode.WorkspaceFolder | undefined {
    return vscode.workspace.workspaceFolders?.[0];
}

// The extension's own storage folder: Python puts the working folder first on sys.path under
// `-c` and `-m`, so a child started in the workspace would import the workspace's modules
// (a `pygls.py`, a `ptxlint/` folder) before the installed ones. PYTHONSAFEPATH does the same
// on Python 3.11+; the folder covers 3.10. The server finds configuration from each file's
// folder, never from its working folder.
let neutralFolder: string | undefined;

function childOptions(): { cwd: string | undefined; env: NodeJS.ProcessEnv } {
    return { cwd: neutralFolder ?? os.tmpdir(), env: { ...process.env, PYTHONSAFEPATH: '1' } };
}

// ------------------------------------------------------------------ the Python extension

interface PythonApi {
    environment: {
        getActiveEnvironmentPath(resource?: vscode.Uri | vscode.WorkspaceFolder): { id: string; path: string };
        resolveEnvironment(
            environment: { id: string; path: string } | string,
        ): Promise<{ executable: { uri: vscode.Uri | undefined } } | undefined>;
        readonly onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
    };
}

async function pythonApi(): Promise<PythonApi | undefined> {
    const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
    if (!extension) {
        return undefined;
    }
    try {
        const api = extension.isActive ? extension.exports : await extension.activate();
        return api?.environment ? api : undefined;
    } catch (error) {
        output.appendLine(`The Python extension did not activate: ${String(error)}`);
        return undefined;
    }
}

async function pythonFromExtension(): Promise<string[] | undefined> {
    const api = await pythonApi();
    if (!api) {
        return undefined;
    }
    try {
        const environment = await api.environment.resolveEnvironment(
            api.environment.getActiveEnvironmentPath(firstFolder()?.uri),
        );
        const uri = environment?.executable.uri;
        return uri ? [uri.fsPath] : undefined;
    } catch (error) {
        output.appendLine(`The Python extension did not name an interpreter: ${String(error)}`);
        return undefined;
    }
}

// ------------------------------------------------------------------ processes

function run(argv: readonly string[], timeout: number): Promise<{ error: Error | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
        execFile(argv[0], argv.slice(1), { timeout, ...childOptions(), maxBuffer: 4 << 20 }, (error, stdout, stderr) =>
            resolve({ error, stdout: String(stdout), stderr: String(stderr) }),
        );
    });
}

async function probe(python: readonly string[]): Promise<ProbeResult> {
    const { error, stdout, stderr } = await run([...python, '-c', PROBE_SCRIPT], PROBE_TIMEOUT_MS);
    if (stderr.trim()) {
        output.appendLine(stderr.trim());
    }
    return readProbe(error, stdout);
}

/** pip in the server's environment, with its output in the channel; true when it succeeded. */
async function install(python: readonly string[]): Promise<boolean> {
    const argv = pipInstallCommand([...python]);
    output.appendLine(`> ${argv.join(' ')}`);
    output.show(true);
    return vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'ptxlint: installing ptxlint[lsp]' },
        () =>
            new Promise<boolean>((resolve) => {
                const child = spawn(argv[0], argv.slice(1), childOptions());
                child.stdout.on('data', (data: Buffer) => output.append(data.toString()));
                child.stderr.on('data', (data: Buffer) => output.append(data.toString()));
                child.on('error', (error) => {
                    output.appendLine(String(error));
                    resolve(false);
                });
                child.on('close', (code) => resolve(code === 0));
            }),
    );
}

// ------------------------------------------------------------------ the server

async function resolveCommand(config: Settings): Promise<ServerCommand> {
    const python = config.path.length > 0 || config.interpreter.length > 0 ? undefined : await pythonFromExtension();
    return resolveServer(config, python, { workspaceFolder: firstFolder()?.uri.fsPath, userHome: os.homedir() });
}

async function offer(command: ServerCommand, result: ProbeResult, config: Settings): Promise<void> {
    const python = command.python ?? [];
    const found = offerFor(result, python, config.installPrompt);
    if (!found) {
        return;
    }
    output.appendLine(found.message);
    const labels = found.actions.map((action) => OFFER_LABELS[action]);
    const picked =
        found.severity === 'error'
            ? await vscode.window.showErrorMessage(found.message, ...labels)
            : await vscode.window.showWarningMessage(found.message, ...labels);
    const action = found.actions.find((candidate) => OFFER_LABELS[candidate] === picked);
    await act(action, python);
}

async function act(action: OfferAction | undefined, python: readonly string[]): Promise<void> {
    switch (action) {
        case 'install':
            if (await install(python)) {
                await restart();
            } else {
                const next = await vscode.window.showErrorMessage('ptxlint: pip failed; see the output.', 'Show Output');
                if (next) {
                    output.show();
                }
            }
            return;
        case 'selectInterpreter':
            // ms-python's command; without that extension, the setting is the way
            if ((await vscode.commands.getCommands(true)).includes('python.setInterpreter')) {
                await vscode.commands.executeCommand('python.setInterpreter');
            } else {
                await vscode.commands.executeCommand('workbench.action.openSettings', 'ptxlint.interpreter');
            }
            return;
        case 'openSettings':
            await vscode.commands.executeCommand('workbench.action.openSettings', 'ptxlint');
            return;
        case 'dontAskAgain':
            await vscode.workspace.getConfiguration('ptxlint').update('installPrompt', false, vscode.ConfigurationTarget.Global);
            return;
        case undefined:
            return;
    }
}

async function startServer(): Promise<void> {
    const config = settings();
    if (!config.enable) {
        output.appendLine('ptxlint.enable is off: the server is not started.');
        return;
    }
    const command = await resolveCommand(config);
    current = command;
    output.appendLine(`Server: ${[command.command, ...command.args].join(' ')} (from ${command.source})`);
    if (command.python) {
        const result = await probe(command.python);
        if (result.state !== 'ready') {
            // not awaited: a notification waits for the user, and starts queued behind it
            // (a settings change, the Restart command) must not
            void offer(command, result, config);
            return;
        }
        output.appendLine(`ptxlint ${result.version} in ${result.executable}`);
    }
    const serverOptions: ServerOptions = {
        command: command.command,
        args: command.args,
        options: childOptions(),
    };
    const clientOptions: LanguageClientOptions = {
        // Files on disk only: the server reads the path (a `.py` is linted by its extension, and
        // configuration is found from the file's folder upward).
        documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
        initializationOptions: initializationOptions(config),
        outputChannel: output,
        revealOutputChannelOn: RevealOutputChannelOn.Never,
    };
    const next = new LanguageClient('ptxlint', 'ptxlint', serverOptions, clientOptions);
    try {
        await next.start();
        client = next;
    } catch (error) {
        output.appendLine(`The server did not start: ${String(error)}`);
        void vscode.window
            .showErrorMessage(`ptxlint: the server did not start (${command.command}).`, 'Show Output', 'Open Settings')
            .then((picked) => {
                if (picked === 'Show Output') {
                    output.show();
                } else if (picked === 'Open Settings') {
                    void vscode.commands.executeCommand('workbench.action.openSettings', 'ptxlint');
                }
            });
    }
}

async function stopServer(): Promise<void> {
    const running = client;
    client = undefined;
    if (running) {
        try {
            await running.stop();
        } catch (error) {
            output.appendLine(`Stopping the server: ${String(error)}`);
        }
    }
}

function restart(): Promise<void> {
    // a failed start is logged, and the queue goes on: a later restart must still run
    queue = queue
        .then(stopServer)
        .then(startServer)
        .catch((error: unknown) => output.appendLine(`Starting the server failed: ${String(error)}`));
    return queue;
}

// ------------------------------------------------------------------ commands

async function fixAll(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
        return;
    }
    const document = editor.document;
    const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
        'vscode.executeCodeActionProvider',
        document.uri,
        whole,
        FIX_ALL_KIND,
    );
    const action = pickFixAll(actions);
    if (!action?.edit) {
        vscode.window.setStatusBarMessage('ptxlint: nothing to fix', 3000);
        return;
    }
    await vscode.workspace.applyEdit(action.edit);
}

async function chooseRule(argument: unknown): Promise<string | undefined> {
    const given = normalizeRuleId(argument);
    if (given) {
        return given;
    }
    const editor = vscode.window.activeTextEditor;
    if (editor) {
        const ids = ruleIdsAt(vscode.languages.getDiagnostics(editor.document.uri), editor.selection.active);
        if (ids.length === 1) {
            return ids[0];
        }
        if (ids.length > 1) {
            return vscode.window.showQuickPick(ids, { placeHolder: 'Which rule?' });
        }
    }
    const typed = await vscode.window.showInputBox({
        prompt: 'ptxlint rule id or name',
        placeHolder: 'PTX101 or missing-volatile',
        validateInput: (value) => (normalizeRuleId(value) ? undefined : 'a rule id (PTX101) or name (missing-volatile)'),
    });
    return normalizeRuleId(typed);
}

async function showRuleDocumentation(argument: unknown): Promise<void> {
    const rule = await chooseRule(argument);
    if (!rule) {
        return;
    }
    const uri = vscode.Uri.from({ scheme: RULE_SCHEME, path: `/${rule}.md` });
    try {
        await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
        // without the built-in Markdown extension: the page as text
        await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true });
    }
}

/** The rule pages, read-only, from `ptxlint rule ID` in the server's environment. */
class RuleDocumentation implements vscode.TextDocumentContentProvider {
    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const rule = normalizeRuleId(uri.path.replace(/^\//, '').replace(/\.md$/, ''));
        if (!rule) {
            return `Not a ptxlint rule: ${uri.path}`;
        }
        const command = current ?? (await resolveCommand(settings()));
        const { error, stdout, stderr } = await run(ruleDocumentationCommand(command.ptxlint, rule), PROBE_TIMEOUT_MS);
        if (error) {
            return `# ${rule}\n\n\`${command.ptxlint.join(' ')} rule ${rule}\` failed:\n\n\`\`\`\n${(stderr || String(error)).trim()}\n\`\`\`\n`;
        }
        return stdout;
    }
}

// ------------------------------------------------------------------ activation

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    output = vscode.window.createOutputChannel('ptxlint');
    context.subscriptions.push(output);
    try {
        await vscode.workspace.fs.createDirectory(context.globalStorageUri);
        neutralFolder = context.globalStorageUri.fsPath;
    } catch (error) {
        output.appendLine(`No storage folder (${String(error)}); children start in the temporary folder`);
    }
    context.subscriptions.push(
        ...registerCommands(vscode.commands, {
            fixAll,
            showRuleDocumentation,
            restart,
            installServer: async () => {
                const command = current ?? (await resolveCommand(settings()));
                if (!command.python) {
                    vscode.window.showInformationMessage(
                        'ptxlint: ptxlint.path names the server executable; install ptxlint[lsp] in its environment yourself.',
                    );
                    return;
                }
                await act('install', command.python);
            },
            showOutput: () => output.show(),
        }),
        vscode.workspace.registerTextDocumentContentProvider(RULE_SCHEME, new RuleDocumentation()),
        vscode.workspace.onDidChangeConfiguration((event) => {
            if (RESTART_KEYS.some((key) => event.affectsConfiguration(`ptxlint.${key}`))) {
                void restart();
            }
        }),
    );
    const api = await pythonApi();
    if (api) {
        context.subscriptions.push(
            api.environment.onDidChangeActiveEnvironmentPath(() => {
                const config = settings();
                if (config.path.length === 0 && config.interpreter.length === 0) {
                    void restart();
                }
            }),
        );
    }
    await restart();
}

export function deactivate(): Promise<void> {
    return stopServer();
}
