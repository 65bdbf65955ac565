// Installs the project's devDependencies when node_modules is missing or was installed from another lock file.
// Runs on the system Node before anything is installed, so it uses builtins only.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run.mjs';

export const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

const lockHash = () =>
	createHash('sha256').update(readFileSync(join(repoRoot, 'package-lock.json'))).digest('hex');

export function ensureDevDependencies() {
	const marker = join(repoRoot, 'node_modules', '.installed-lock-sha256');
	if (existsSync(marker) && readFileSync(marker, 'utf8') === lockHash()) return;
	console.log('Installing dev dependencies (npm install --ignore-scripts)...');
	// --ignore-scripts: eslint-plugin-n8n-nodes-base's preinstall runs `npx only-allow pnpm`, which aborts
	// under this machine's npmrc (yes=false); no dependency of the tests needs an install script.
	// `npm install` rather than `npm ci`: the lock lacks other platforms' optional native bindings
	// (@unrs/resolver-binding-*), which this registry does not carry, and `npm ci` rejects it as out of sync.
	// `npm install` installs the locked versions all the same; --no-save leaves the tracked lock file as it is.
	run('npm', ['install', '--ignore-scripts', '--no-save', '--no-audit', '--no-fund'], { cwd: repoRoot });
	writeFileSync(marker, lockHash());
}
