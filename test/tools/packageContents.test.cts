// What `npm pack` puts in the tarball users install: what n8n loads (package.json#n8n) and what a reader needs
// (README, LICENSE), nothing else. Needs a build (npm test builds before jest; alone: npx n8n-node build).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');

interface PackageJson {
	main?: string;
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
