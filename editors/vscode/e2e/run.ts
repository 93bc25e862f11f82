// End-to-end test in a real VS Code: code-server in headless Chromium, driven by playwright-core.
//
// It installs the packaged extension into a fresh code-server profile, opens a workspace with a
// CUDA file and a Triton file that have defects, waits for ptxlint's diagnostics in the Problems
// panel, shows a rule's documentation with the extension's command, applies a quick fix (the .cu
// file) and the extension's fix-all command (the .py file), saves both, and checks the text on
// disk. With --bare-python, it then points ptxlint.interpreter at a Python without ptxlint (or
// pip), waits for the offer to install ptxlint[lsp], accepts it and sees pip fail there. tests/test_vscode_e2e.py runs it; by hand:
//
//   node out/e2e/run.js --code-server PATH --chromium /usr/bin/chromium --vsix ptxlint.vsix \
//        --python /path/to/venv/bin/python --fixtures ../../fixtures --work /tmp/e2e \
//        --screenshot /tmp/ptxlint-vscode-e2e.png
//
// It prints one JSON line with what it saw; the exit status is 0 only when every check passed.

import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Locator, Page, chromium } from 'playwright-core';

interface Options {
    codeServer: string;
    chromium: string;
    vsix: string;
    python: string;
    fixtures: string;
    work: string;
    screenshot: string;
    timeoutMs: number;
    /** A Python without ptxlint, for the install offer; optional. */
    barePython: string | undefined;
}

const CU_FILE = 'tile_copy.cu';
const PY_FILE = 'triton_kernels.py';

function parseArguments(argv: string[]): Options {
    const values = new Map<string, string>();
    for (let i = 0; i < argv.length; i += 2) {
        if (!argv[i].startsWith('--') || i + 1 >= argv.length) {
            throw new Error(`bad argument: ${argv[i]}`);
        }
        values.set(argv[i].slice(2), argv[i + 1]);
    }
    const need = (key: string): string => {
        const value = values.get(key);
        if (!value) {
            throw new Error(`missing --${key}`);
        }
        return value;
    };
    return {
        codeServer: need('code-server'),
        chromium: need('chromium'),
        vsix: path.resolve(need('vsix')),
        python: need('python'),
        fixtures: path.resolve(need('fixtures')),
        work: path.resolve(need('work')),
        screenshot: path.resolve(need('screenshot')),
        timeoutMs: Number(values.get('timeout-ms') ?? 120_000),
        barePython: values.get('bare-python'),
    };
}

function log(message: string): void {
    process.stderr.write(`[e2e ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** Write a settings file whole: a new file renamed over the old one. code-server watches the
 *  workspace's settings; a file truncated and then written could be read between the two, as
 *  no settings at all (a restart with the default interpreter, and its own install offer). */
function writeJson(file: string, value: unknown): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, JSON.stringify(value, null, 2));
    fs.renameSync(partial, file);
}

/** The workspace and a code-server profile of this run's own, so nothing leaks in or out. */
function prepare(options: Options): { workspace: string; userData: string; extensions: string } {
    const workspace = path.join(options.work, 'workspace');
    const userData = path.join(options.work, 'user-data');
    const extensions = path.join(options.work, 'extensions');
    for (const folder of [workspace, userData, extensions]) {
        fs.rmSync(folder, { recursive: true, force: true });
        fs.mkdirSync(folder, { recursive: true });
    }
    fs.copyFileSync(path.join(options.fixtures, 'example', CU_FILE), path.join(workspace, CU_FILE));
    fs.copyFileSync(path.join(options.fixtures, 'example-triton', PY_FILE), path.join(workspace, PY_FILE));
    writeJson(path.join(workspace, '.vscode', 'settings.json'), {
        'ptxlint.interpreter': [options.python],
        'ptxlint.logLevel': 'INFO',
    });
    // Quiet start-up: no welcome page, trust prompt, tips or update checks to click away.
    writeJson(path.join(userData, 'User', 'settings.json'), {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'extensions.ignoreRecommendations': true,
        'window.restoreWindows': 'none',
        'files.autoSave': 'off',
        'editor.quickSuggestions': { other: false, comments: false, strings: false },
        'workbench.editor.enablePreview': false,
    });
    return { workspace, userData, extensions };
}

/** The port code-server bound (it is started on port 0): read from its log line. A port found
 *  free here and handed to it would stay free only until another process took it, and
 *  code-server binds seconds later on a busy machine. */
function listeningPort(child: ChildProcess, deadline: number): Promise<number> {
    return new Promise((resolve, reject) => {
        let seen = '';
        const timer = setTimeout(() => finish(new Error('code-server never said where it listens')), Math.max(0, deadline - Date.now()));
        const onData = (data: Buffer): void => {
            seen = (seen + data.toString()).slice(-4096);
            const found = /HTTP server listening on https?:\/\/[^\s/]+:(\d+)/.exec(seen);
            if (found) {
                finish(undefined, Number(found[1]));
            }
        };
        const onExit = (code: number | null): void => finish(new Error(`code-server exited with ${code}`));
        function finish(error: Error | undefined, port?: number): void {
            clearTimeout(timer);
            child.stdout?.off('data', onData);
            child.stderr?.off('data', onData);
            child.off('exit', onExit);
            if (error) {
                reject(error);
            } else {
                resolve(port as number);
            }
        }
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
        child.once('exit', onExit);
    });
}

/** End code-server and everything it started (its own process group), and wait until it has
 *  exited: the scratch folder its children write in is removed after, not during. */
async function stopProcessGroup(child: ChildProcess, graceMs: number): Promise<void> {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
        return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const signal = (name: NodeJS.Signals): void => {
        try {
            process.kill(-(child.pid as number), name);
        } catch {
            child.kill(name);
        }
    };
    signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
    });
    if (await Promise.race([exited.then(() => false), late])) {
        signal('SIGKILL');
        await exited;
    }
    clearTimeout(timer);
    // its children (the extension host, the language server) were signalled with it: any of
    // them still ending is killed before the folder they write in is removed
    signal('SIGKILL');
}

async function waitForHttp(url: string, deadline: number, child: ChildProcess): Promise<void> {
    while (Date.now() < deadline) {
        if (child.exitCode !== null) {
            throw new Error(`code-server exited with ${child.exitCode}`);
        }
        try {
            const response = await fetch(url);
            if (response.ok) {
                return;
            }
        } catch {
            // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error(`code-server did not answer at ${url}`);
}

async function waitForFile(file: string, check: (text: string) => boolean, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let text = '';
    while (Date.now() < deadline) {
        text = fs.readFileSync(file, 'utf8');
        if (check(text)) {
            return text;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${path.basename(file)} on disk never passed its check; it reads:\n${text}`);
}

// ------------------------------------------------------------------ the workbench

class Workbench {
    constructor(
        private readonly page: Page,
        private readonly timeoutMs: number,
    ) {}

    /** Run a command by its title through the command palette. */
    async command(title: string): Promise<void> {
        await this.page.keyboard.press('F1');
        const input = this.page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible' });
        await input.fill(`>${title}`);
        const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
        await row.waitFor({ state: 'visible', timeout: this.timeoutMs });
        await row.click();
    }

    /** Open a file of the workspace from the Explorer (a click opens it, previews are off). */
    async open(file: string): Promise<void> {
        await this.page.locator('.explorer-folders-view .monaco-list-row', { hasText: file }).first().click();
        await this.page.locator('.tab.active', { hasText: file }).waitFor({ timeout: this.timeoutMs });
        await this.focusEditor();
    }

    async focusEditor(): Promise<void> {
        await this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    }

    async goToLine(line: number, column: number): Promise<void> {
        await this.page.keyboard.press('Control+G');
        const input = this.page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible' });
        // Go to Line is Quick Open with a leading colon; without it the text is a file search
        await input.fill(`:${line}:${column}`);
        await input.press('Enter');
        await input.waitFor({ state: 'hidden' });
    }

    problems(): Locator {
        return this.page.locator('.markers-panel');
    }

    /** Wait for a diagnostic of `rule` on `file` in the Problems panel; the row's text. */
    async problem(file: string, rule: string): Promise<string> {
        const panel = this.problems();
        if (!(await panel.isVisible())) {
            await this.command('View: Focus Problems');
        }
        await panel.waitFor({ state: 'visible', timeout: this.timeoutMs });
        // the file's row heads its problems; rows are virtualised, so filter to the rule. The
        // Problems filter by its own placeholder: '.viewpane-filter input' is every view's
        // filter, and the first match need not be this view's
        const filter = this.page.locator('input[placeholder*="**/node_modules/**"]');
        await filter.fill(rule);
        const row = panel.locator('.monaco-list-row', { hasText: rule }).filter({ hasText: /ptxlint/ }).first();
        await panel.locator('.monaco-list-row', { hasText: file }).first().waitFor({ timeout: this.timeoutMs });
        await row.waitFor({ state: 'visible', timeout: this.timeoutMs });
        const text = (await row.innerText()).replace(/\s+/g, ' ').trim();
        await filter.fill('');
        return text;
    }

    /** Open the quick-fix menu at the cursor and pick the action whose title contains `title`. */
    async quickFix(title: string): Promise<void> {
        await this.page.keyboard.press('Control+.');
        const item = this.page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
        await item.waitFor({ state: 'visible', timeout: this.timeoutMs });
        // The menu lays a pointer block over the page while it opens, so choose by keyboard:
        // move the focus down to the action, then apply it.
        const focused = this.page.locator('.action-widget .monaco-list-row.focused');
        for (let step = 0; step < 20; step++) {
            const label = (await focused.count()) > 0 ? await focused.first().getAttribute('aria-label') : null;
            if (label?.includes(title)) {
                await this.page.keyboard.press('Enter');
                await item.waitFor({ state: 'detached', timeout: this.timeoutMs });
                return;
            }
            await this.page.keyboard.press('ArrowDown');
        }
        throw new Error(`the quick-fix menu never focused '${title}'`);
    }

    /** Save the active editor once an edit has reached it (commands apply edits after they
     *  return to the palette), and wait until VS Code has written it. */
    async save(): Promise<void> {
        const dirty = this.page.locator('.tab.active.dirty');
        await dirty.waitFor({ timeout: this.timeoutMs });
        await this.focusEditor();
        await this.page.keyboard.press('Control+S');
        await dirty.waitFor({ state: 'detached', timeout: this.timeoutMs });
    }
}

// ------------------------------------------------------------------ the test

async function main(): Promise<number> {
    const options = parseArguments(process.argv.slice(2));
    const { workspace, userData, extensions } = prepare(options);
    const profile = ['--user-data-dir', userData, '--extensions-dir', extensions];
    // code-server writes a config file with a password to ~/.config unless given one
    const config = path.join(options.work, 'code-server.yaml');
    fs.writeFileSync(config, 'auth: none\ncert: false\n');
    // code-server's git extension leaves sockets in TMPDIR and Chromium a crash-report folder
    // under XDG_CONFIG_HOME: both go to a folder of this run's own, removed at the end. It is
    // short and in the system's temporary folder: a socket path has at most 107 bytes.
    const scratchRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'ptxlint-e2e-'));
    const scratch = { TMPDIR: scratchRoot, XDG_CONFIG_HOME: path.join(scratchRoot, 'config') };
    fs.mkdirSync(scratch.XDG_CONFIG_HOME);
    const env = { ...process.env, ...scratch, CODE_SERVER_CONFIG: config };

    log(`installing ${options.vsix}`);
    const installed = execFileSync(options.codeServer, [...profile, '--install-extension', options.vsix], {
        encoding: 'utf8',
        timeout: 120_000,
        env,
    });
    log(installed.trim());
    const listed = execFileSync(options.codeServer, [...profile, '--list-extensions', '--show-versions'], { encoding: 'utf8', env });
    if (!/^ptxlint\.ptxlint@/m.test(listed)) {
        throw new Error(`the extension is not listed after installing it:\n${listed}`);
    }

    const server = spawn(
        options.codeServer,
        [
            ...profile,
            '--auth',
            'none',
            '--bind-addr',
            '127.0.0.1:0',
            '--disable-telemetry',
            '--disable-update-check',
            '--disable-workspace-trust',
            '--disable-getting-started-override',
            '--ignore-last-opened',
            workspace,
        ],
        // its own process group, so that the cleanup below ends code-server and its children
        { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env },
    );
    // Listened for from the start: the pipes below set the streams flowing, and a line that
    // came while Chromium launched was gone by the time a later listener was added (code-server
    // said where it listens 15 ms after it started, and the run waited a minute for it).
    const listening = listeningPort(server, Date.now() + 60_000);
    listening.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const serverLog = fs.createWriteStream(path.join(options.work, 'code-server.log'));
    server.stdout?.pipe(serverLog);
    server.stderr?.pipe(serverLog);

    const browser = await chromium.launch({
        executablePath: options.chromium,
        headless: true,
        env: { ...process.env, ...scratch },
        args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
        ],
    });
    const result: Record<string, unknown> = {};
    let page: Page | undefined;
    try {
        const port = await listening;
        result.port = port;
        await waitForHttp(`http://127.0.0.1:${port}/healthz`, Date.now() + 60_000, server);
        const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
        page = await context.newPage();
        // every wait of a step has the run's budget: a busy machine slows each one alike
        page.setDefaultTimeout(options.timeoutMs);
        await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
        await page.locator('.monaco-workbench').waitFor({ timeout: options.timeoutMs });
        // the explorer lists the workspace once the folder is open
        await page.locator('.explorer-folders-view .monaco-list-row', { hasText: CU_FILE }).waitFor({ timeout: options.timeoutMs });
        const bench = new Workbench(page, options.timeoutMs);

        log(`opening ${CU_FILE}`);
        await bench.open(CU_FILE);
        await bench.command('View: Focus Problems');
        result.cuProblem = await bench.problem(CU_FILE, 'PTX101');
        log(`Problems: ${result.cuProblem}`);

        log(`opening ${PY_FILE}`);
        await bench.open(PY_FILE);
        result.pyProblem = await bench.problem(PY_FILE, 'PTX505');
        log(`Problems: ${result.pyProblem}`);
        await page.screenshot({ path: options.screenshot });
        result.screenshot = options.screenshot;

        // The rule documentation command, with the cursor on two findings (PTX008, PTX101):
        // it asks which, and shows `ptxlint rule PTX101` as a Markdown preview.
        await bench.open(CU_FILE);
        await bench.goToLine(15, 20);
        await bench.command('ptxlint: Show rule documentation');
        const input = page.locator('.quick-input-widget input');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'PTX008' }).waitFor();
        await input.fill('PTX101');
        await page.locator('.quick-input-list .monaco-list-row', { hasText: 'PTX101' }).first().waitFor();
        await input.press('Enter');
        await page.locator('.tab.active', { hasText: 'PTX101.md' }).waitFor({ timeout: options.timeoutMs });
        const preview = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame').locator('body');
        await preview.getByText('missing-volatile').first().waitFor({ timeout: options.timeoutMs });
        result.ruleDocs = (await preview.locator('h1').first().innerText()).trim();
        log(`rule documentation: ${String(result.ruleDocs)}`);
        result.ruleDocsScreenshot = options.screenshot.replace(/\.png$/, '-rule-docs.png');
        await page.screenshot({ path: String(result.ruleDocsScreenshot) });
        await bench.command('View: Close Editor');

        // The quick fix on the .cu file: the non-volatile %clock read (line 15, column 20).
        await bench.open(CU_FILE);
        await bench.goToLine(15, 20);
        await bench.quickFix("Add 'volatile' after 'asm' (PTX101)");
        await bench.save();
        const cu = await waitForFile(
            path.join(workspace, CU_FILE),
            (text) => text.includes('asm volatile("mov.u32 %0, %clock;"'),
            options.timeoutMs,
        );
        result.cuFixed = cu.split('\n').find((line) => line.includes('%clock')) ?? '';
        log(`saved: ${String(result.cuFixed).trim()}`);

        // The extension's fix-all command on the Triton file.
        await bench.open(PY_FILE);
        await bench.command('ptxlint: Fix all auto-fixable problems');
        await bench.save();
        const py = await waitForFile(
            path.join(workspace, PY_FILE),
            (text) => text.includes('is_pure=False') && !text.includes('%%laneid'),
            options.timeoutMs,
        );
        result.pyFixed = py.split('\n').filter((line) => /is_pure=False|%laneid/.test(line));
        log(`saved: ${JSON.stringify(result.pyFixed)}`);

        // Once saved and re-linted, the fixed diagnostic is gone from the Problems panel.
        await bench.open(CU_FILE);
        await bench.command('View: Focus Problems');
        const stale = bench.problems().locator('.monaco-list-row', { hasText: "'%clock' changes while the thread runs" });
        await stale.first().waitFor({ state: 'detached', timeout: options.timeoutMs });
        // An environment without ptxlint: after the settings change the extension restarts,
        // probes it and offers the pip install in a notification. That environment has no pip
        // either (no network needed): clicking Install runs its pip, which fails, and says so.
        if (options.barePython) {
            writeJson(path.join(workspace, '.vscode', 'settings.json'), { 'ptxlint.interpreter': [options.barePython] });
            const toast = page.locator('.notification-toast', { hasText: 'ptxlint is not installed in' });
            await toast.waitFor({ timeout: options.timeoutMs });
            const install = toast.locator('.monaco-button', { hasText: 'Install ptxlint[lsp]' });
            // A warning with buttons is not sticky: VS Code hides its toast 18 s after showing
            // it, unless the pointer is over it. The pointer goes there first, so a slow
            // screenshot or a stalled machine never finds the button gone.
            await install.hover();
            result.installOffer = (await toast.locator('.notification-list-item-message').innerText()).trim();
            log(`offer: ${String(result.installOffer)}`);
            await page.screenshot({ path: options.screenshot.replace(/\.png$/, '-install-offer.png') });
            await install.click();
            await page.locator('.notification-toast', { hasText: 'pip failed' }).waitFor({ timeout: options.timeoutMs });
            // The output channel, shown by the install, holds the command and pip's answer.
            // VS Code creates the Output view with the filter the Problems view last saved
            // (both views read the Problems view's stored state), so a rule filled into the
            // Problems filter above can come back here, hiding every line; which run it hits
            // depends on when the workbench saved its state. The Output view's own filter is
            // set to 'pip' instead: it shows the lines wanted, wherever the channel scrolled.
            const outputFilter = page.locator('.part.panel input[placeholder="Filter"]').filter({ visible: true });
            await outputFilter.fill('pip');
            const lines = page.locator('.output-view .view-lines, .panel .output .view-lines').first();
            await lines.getByText('No module named pip').first().waitFor({ timeout: options.timeoutMs });
            result.installOutput = (await lines.innerText())
                .replace(/\u00a0/g, ' ')
                .split('\n')
                .filter((line) => line.includes('pip'));
            log('pip ran in that environment, and its failure was shown');
        }
        result.ok = true;
        process.stdout.write(JSON.stringify(result) + '\n');
        return 0;
    } catch (error) {
        result.ok = false;
        result.error = String(error instanceof Error ? (error.stack ?? error.message) : error);
        if (page) {
            const failure = options.screenshot.replace(/\.png$/, '-failure.png');
            await page.screenshot({ path: failure }).catch(() => undefined);
            result.failureScreenshot = failure;
        }
        process.stdout.write(JSON.stringify(result) + '\n');
        return 1;
    } finally {
        await browser.close().catch(() => undefined);
        await stopProcessGroup(server, 15_000);
        try {
            fs.rmSync(scratchRoot, { recursive: true, force: true, maxRetries: 5 });
        } catch (error) {
            log(`the scratch folder ${scratchRoot} was not removed: ${String(error)}`);
        }
    }
}

main().then(
    (code) => process.exit(code),
    (error) => {
        process.stdout.write(JSON.stringify({ ok: false, error: String(error) }) + '\n');
        process.exit(1);
    },
);
