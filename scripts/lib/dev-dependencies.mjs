// Installs the project's devDependencies when node_modules is missing or was installed from another lock file.
// Runs on the system Node before anything is installed, so it uses builtins only.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './run.mjs';

export const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

export function ensureDevDependencies() {
	const lock = readFileSync(join(repoRoot, 'package-lock.json'));
	const lockHash = createHash('sha256').update(lock).digest('hex');
	const marker = join(repoRoot, 'node_modules', '.installed-lock-sha256');
	if (existsSync(marker) && readFileSync(marker, 'utf8') === lockHash) return;
	console.log('Installing dev dependencies (npm ci --ignore-scripts)...');
	// --ignore-scripts: eslint-plugin-n8n-nodes-base's preinstall runs `npx only-allow pnpm`, which aborts
	// under this machine's npmrc (yes=false); no dependency of the tests needs an install script.
	run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: repoRoot });
	writeFileSync(marker, lockHash);
}
