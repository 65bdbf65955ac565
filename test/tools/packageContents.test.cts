// What `npm pack` puts in the tarball users install: what n8n loads (package.json#n8n) and what a reader needs
// (README, LICENSE), nothing else; and its entry (`main`, `types`) is real: it exports the classes n8n loads.
// Needs a build (npm test builds before jest; alone: npx n8n-node build).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');

interface PackageJson {
	main?: string;
	types?: string;
	files?: string[];
	n8n?: { nodes?: string[]; credentials?: string[] };
}

/** Paths that must never ship: build caches, tests, the sandbox and other development sources. */
const NOT_SHIPPED: Array<[RegExp, string]> = [
	[/\.tsbuildinfo$/, 'a TypeScript build cache'],
	[/(^|\/)\.cache\//, 'a build cache'],
	[/(^|\/)(test|tests|__tests__)\//, 'a test file'],
	[/\.(test|spec)\.[cm]?[jt]s$/, 'a test file'],
	[/^(dist\/)?sandbox\//, 'sandbox code'],
	[/^(dist\/)?(bench|scripts|examples|docs)\//, 'a development file'],
	[/\.[cm]?ts$/, 'a TypeScript source'],
];

/** Every reason the packed file list is wrong for this package.json; none means it ships as it should. */
export function packageProblems(files: string[], pkg: PackageJson): string[] {
	const problems: string[] = [];
	const shipped = new Set(files);
	for (const file of files) {
		// Type declarations (.d.ts) are not sources.
		const hit = NOT_SHIPPED.find(([pattern]) => pattern.test(file) && !file.endsWith('.d.ts'));
		if (hit) problems.push(`${file} is ${hit[1]}`);
	}
	if (pkg.main !== undefined && !shipped.has(path.posix.normalize(pkg.main))) problems.push(`main names ${pkg.main}, which the tarball does not contain`);
	if (pkg.types !== undefined && !shipped.has(path.posix.normalize(pkg.types))) problems.push(`types names ${pkg.types}, which the tarball does not contain`);
	for (const entry of [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])]) {
		if (!shipped.has(entry)) problems.push(`n8n loads ${entry}, which the tarball does not contain (build first: npx n8n-node build)`);
	}
	if (!shipped.has('package.json') || !shipped.has('README.md')) problems.push('package.json and README.md must ship');
	return problems;
}

describe('the packed package (npm pack --dry-run --json)', () => {
	const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as PackageJson;

	it('the check finds build caches, test files, sandbox code and a main that is not shipped', () => {
		const good = ['package.json', 'README.md', 'LICENSE.md', 'dist/index.js', 'dist/nodes/A/A.node.js', 'dist/nodes/A/A.node.d.ts'];
		const manifest = { main: 'dist/index.js', n8n: { nodes: ['dist/nodes/A/A.node.js'] } };
		expect(packageProblems(good, manifest)).toEqual([]);
		expect(packageProblems([...good, 'dist/tsconfig.tsbuildinfo'], manifest)).toEqual(['dist/tsconfig.tsbuildinfo is a TypeScript build cache']);
		expect(packageProblems([...good, 'dist/test/node/order.test.js', 'sandbox/index.cts'], manifest)).toEqual([
			'dist/test/node/order.test.js is a test file',
			'sandbox/index.cts is sandbox code',
		]);
		expect(packageProblems(good, { ...manifest, main: 'index.js' })).toEqual(['main names index.js, which the tarball does not contain']);
		expect(packageProblems(good, { ...manifest, types: 'dist/index.d.ts' })).toEqual(['types names dist/index.d.ts, which the tarball does not contain']);
		expect(packageProblems(good.filter((file) => !file.includes('A.node.js')), manifest)).toEqual([
			'n8n loads dist/nodes/A/A.node.js, which the tarball does not contain (build first: npx n8n-node build)',
		]);
	});

	it('ships what n8n loads and a reader needs, and nothing else', () => {
		const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: repoRoot, encoding: 'utf8' });
		expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
		const [packed] = JSON.parse(result.stdout) as Array<{ files: Array<{ path: string }>; size: number }>;
		const files = packed.files.map((file) => file.path);
		expect(packageProblems(files, pkg)).toEqual([]);
		// The nodes' icons and codex files ship beside their code.
		expect(files).toEqual(expect.arrayContaining(['dist/nodes/Ollang/ollang.svg', 'dist/nodes/Ollang/Ollang.node.json']));
	});
});

/**
 * Run in a plain Node process inside the unpacked package, as an importer and n8n would load it: what `main` exports,
 * and for each file of package.json#n8n whether its class is the very one `main` exports under the same name.
 */
const LOAD_AS_USERS_DO = `
const path = require('node:path');
const root = process.argv[1];
const pkg = require(path.join(root, 'package.json'));
const main = require(root);
const loaded = [...pkg.n8n.nodes, ...pkg.n8n.credentials].flatMap((file) =>
	Object.entries(require(path.join(root, file))).map(([name, value]) => ({ file, name, sameAsMain: main[name] === value, isClass: typeof value === 'function' })));
console.log(JSON.stringify({ exported: Object.keys(main).sort(), loaded }));
`;

describe('the packed tarball\'s entry (package.json main and types)', () => {
	it('main exports exactly the node and credential classes n8n loads from package.json#n8n, the same objects', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'ollang-pack-'));
		try {
			const pack = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--loglevel=error', '--pack-destination', dir], { cwd: repoRoot, encoding: 'utf8' });
			expect({ status: pack.status, stderr: pack.stderr }).toEqual({ status: 0, stderr: '' });
			const [{ filename }] = JSON.parse(pack.stdout) as Array<{ filename: string }>;
			// Unpacked where an install puts it, beside the peer dependency n8n provides.
			const installed = path.join(dir, 'node_modules', 'n8n-nodes-ollang');
			mkdirSync(installed, { recursive: true });
			const untar = spawnSync('tar', ['-xzf', path.join(dir, filename), '-C', installed, '--strip-components=1'], { encoding: 'utf8' });
			expect(untar.status).toBe(0);
			symlinkSync(path.join(repoRoot, 'node_modules', 'n8n-workflow'), path.join(dir, 'node_modules', 'n8n-workflow'), 'dir');
			const load = spawnSync(process.execPath, ['-e', LOAD_AS_USERS_DO, installed], { cwd: dir, encoding: 'utf8' });
			expect({ status: load.status, stderr: load.stderr }).toEqual({ status: 0, stderr: '' });
			const { exported, loaded } = JSON.parse(load.stdout) as { exported: string[]; loaded: Array<{ file: string; name: string; sameAsMain: boolean; isClass: boolean }> };
			expect(loaded.map(({ file, name }) => `${file}#${name}`)).toEqual([
				'dist/nodes/Ollang/Ollang.node.js#Ollang',
				'dist/nodes/OllangTrigger/OllangTrigger.node.js#OllangTrigger',
				'dist/nodes/OllangCallbackTrigger/OllangCallbackTrigger.node.js#OllangCallbackTrigger',
				'dist/credentials/OllangApi.credentials.js#OllangApi',
			]);
			expect(loaded.every(({ sameAsMain, isClass }) => sameAsMain && isClass)).toBe(true);
			expect(exported).toEqual(loaded.map(({ name }) => name).sort());
			const pkg = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as PackageJson;
			expect(readFileSync(path.join(installed, pkg.types!), 'utf8')).toMatch(/export \{ Ollang \} from/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
