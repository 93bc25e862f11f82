// package.json as the tests read it: the contributions the code must agree with.
import * as fs from 'fs';
import * as path from 'path';

interface Manifest {
    activationEvents: string[];
    main: string;
    contributes: {
        commands: { command: string; title: string }[];
        configuration: { properties: Record<string, { default?: unknown; scope?: string }> };
    };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
}

// out/src/test/ -> the extension's folder
export const manifest: Manifest = JSON.parse(
    fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8'),
) as Manifest;
