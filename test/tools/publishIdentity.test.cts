// The identity gate (scripts/publish-identity.mjs), run before any publish: by npm publish (prepublishOnly) and as
// the publish workflow's first step. The shipped package carries placeholders that n8n's scanner accepts and the gate
// refuses; `--set` writes a publisher's identity everywhere it appears, and the gate checks the places agree.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const gate = path.join(repoRoot, 'scripts', 'publish-identity.mjs');
const shipped = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const PUBLISHER = 'Ada Publisher <ada@example.org>';

/** A copy of what the gate reads (package.json, README and its images, LICENSE, CHANGELOG, publish workflow). */
function copyOfRepository(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'publish-identity-'));
	for (const file of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', path.join('.github', 'workflows', 'publish.yml'), path.join('docs', 'images')]) {
		mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
		cpSync(path.join(repoRoot, file), path.join(dir, file), { recursive: true });
	}
	return dir;
}

let dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
	dirs = [];
});

function runGate(dir: string, args: string[] = [], env: Record<string, string> = {}) {
	const result = spawnSync(process.execPath, [gate, path.join(dir, 'package.json'), ...args], {
		encoding: 'utf8',
		env: { PATH: process.env.PATH ?? '', ...env },
	});
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A copy with a publisher's identity set through `--set`. */
function publishable(): string {
	const dir = copyOfRepository();
	dirs.push(dir);
	const set = runGate(dir, ['--set', 'ada-publisher/n8n-nodes-ollang', PUBLISHER]);
	expect(set.output).toContain('Publishing n8n-nodes-ollang@');
	expect(set.status).toBe(0);
	return dir;
}

const edit = (dir: string, file: string, change: (text: string) => string) => writeFileSync(path.join(dir, file), change(readFileSync(path.join(dir, file), 'utf8')));
const editManifest = (dir: string, change: (manifest: Record<string, any>) => void) =>
	edit(dir, 'package.json', (text) => {
		const manifest = JSON.parse(text);
		change(manifest);
		return JSON.stringify(manifest, null, 2);
	});

describe('publish identity gate', () => {
	it('runs before npm publish, and npm publish outside the release flow is refused (n8n-node prerelease)', () => {
		expect(shipped.scripts.prepublishOnly).toBe('node scripts/publish-identity.mjs && n8n-node prerelease');
	});

	it('refuses the shipped placeholders, naming each field and how to set it', () => {
		const dir = copyOfRepository();
		dirs.push(dir);
		const { status, output } = runGate(dir);
		expect(status).toBe(1);
		expect(output).toContain('author.email "publisher@n8n-nodes-ollang.invalid" is the placeholder');
		expect(output).toContain('repository.url "git+https://github.com/publisher.invalid/n8n-nodes-ollang.git" is the placeholder');
		expect(output).toContain('node scripts/publish-identity.mjs --set <github-owner>/<repository>');
	});

	it('the shipped repository, homepage, bugs and README images already agree with each other', () => {
		const dir = copyOfRepository();
		dirs.push(dir);
		const problems = runGate(dir).output.split('\n').filter((line) => line.startsWith('- '));
		expect(problems).toEqual([
			'- author.email "publisher@n8n-nodes-ollang.invalid" is the placeholder (reserved .invalid domain)',
			'- repository.url "git+https://github.com/publisher.invalid/n8n-nodes-ollang.git" is the placeholder (owner publisher.invalid)',
		]);
	});

	it('--set writes author, repository, homepage, bugs and the README image URLs, which then pass', () => {
		const dir = publishable();
		const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
		expect(manifest.author).toEqual({ name: 'Ada Publisher', email: 'ada@example.org' });
		expect(manifest.repository).toEqual({ type: 'git', url: 'git+https://github.com/ada-publisher/n8n-nodes-ollang.git' });
		expect(manifest.homepage).toBe('https://github.com/ada-publisher/n8n-nodes-ollang#readme');
		expect(manifest.bugs).toEqual({ url: 'https://github.com/ada-publisher/n8n-nodes-ollang/issues' });
		const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
		expect(readme).not.toMatch(/https:\/\/(github\.com|raw\.githubusercontent\.com)\/publisher\.invalid\//);
		expect(readme).toContain('https://github.com/ada-publisher/n8n-nodes-ollang/issues');
		expect(readme).toContain('](https://raw.githubusercontent.com/ada-publisher/n8n-nodes-ollang/main/docs/images/');
		expect(runGate(dir).status).toBe(0);
	});

	it('refuses a homepage, bugs URL or README image of another place than the repository', () => {
		let dir = publishable();
		editManifest(dir, (manifest) => {
			manifest.homepage = 'https://www.npmjs.com/package/n8n-nodes-ollang';
			manifest.bugs = { url: 'https://github.com/someone-else/n8n-nodes-ollang/issues' };
		});
		let result = runGate(dir);
		expect(result.status).toBe(1);
		expect(result.output).toContain('homepage "https://www.npmjs.com/package/n8n-nodes-ollang" is not the repository\'s README (https://github.com/ada-publisher/n8n-nodes-ollang#readme)');
		expect(result.output).toContain('bugs.url "https://github.com/someone-else/n8n-nodes-ollang/issues" is not the repository\'s issues');

		dir = publishable();
		edit(dir, 'README.md', (text) => `${text}\n![relative](docs/images/ollang-node-panel.png)\n![missing](https://raw.githubusercontent.com/ada-publisher/n8n-nodes-ollang/main/docs/images/nope.png)\n`);
		result = runGate(dir);
		expect(result.status).toBe(1);
		expect(result.output).toContain('README image "docs/images/ollang-node-panel.png" is not under https://raw.githubusercontent.com/ada-publisher/n8n-nodes-ollang/main/');
		expect(result.output).toContain('README image "https://raw.githubusercontent.com/ada-publisher/n8n-nodes-ollang/main/docs/images/nope.png" names a file the repository does not have');
	});

	it('refuses a missing e-mail, a missing LICENSE and a publish workflow without id-token: write', () => {
		const dir = publishable();
		editManifest(dir, (manifest) => {
			manifest.author = { name: 'A Publisher' };
		});
		rmSync(path.join(dir, 'LICENSE'));
		edit(dir, path.join('.github', 'workflows', 'publish.yml'), (text) => text.replace(/id-token: write/g, 'id-token: none'));
		const { status, output } = runGate(dir);
		expect(status).toBe(1);
		expect(output).toContain('author.email "" is not an e-mail address');
		expect(output).toContain('LICENSE is missing or is not the MIT License');
		expect(output).toContain('does not grant id-token: write');
	});

	it('in CI, refuses a workflow run in another repository or workflow, and a tag whose version has no CHANGELOG section', () => {
		const dir = publishable();
		const version = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
		const inActions = {
			GITHUB_REPOSITORY: 'ada-publisher/n8n-nodes-ollang',
			GITHUB_WORKFLOW_REF: `ada-publisher/n8n-nodes-ollang/.github/workflows/publish.yml@refs/tags/${version}`,
			GITHUB_REF_TYPE: 'tag',
		};
		expect(runGate(dir, ['--ci'], inActions).status).toBe(0);
		const elsewhere = runGate(dir, ['--ci'], { ...inActions, GITHUB_REPOSITORY: 'fork-owner/n8n-nodes-ollang' });
		expect(elsewhere.status).toBe(1);
		expect(elsewhere.output).toContain('this workflow runs in "fork-owner/n8n-nodes-ollang", but repository.url names ada-publisher/n8n-nodes-ollang');
		const otherWorkflow = runGate(dir, ['--ci'], { ...inActions, GITHUB_WORKFLOW_REF: 'ada-publisher/n8n-nodes-ollang/.github/workflows/ci.yml@refs/heads/main' });
		expect(otherWorkflow.output).toContain('is not .github/workflows/publish.yml');
		editManifest(dir, (manifest) => {
			manifest.version = '9.9.9';
		});
		const unrecorded = runGate(dir, ['--ci'], inActions);
		expect(unrecorded.status).toBe(1);
		expect(unrecorded.output).toContain('CHANGELOG.md has no section for 9.9.9');
	});
});
