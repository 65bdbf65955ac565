// The GitHub Actions workflows, read by GitHub's own workflow parser (@actions/workflow-parser, through
// scripts/validate-workflows.mjs): both files valid, and the settings npm provenance and n8n's verification depend on.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const validator = path.join(repoRoot, 'scripts', 'validate-workflows.mjs');

type Json = Record<string, any>;
interface Verdict {
	file: string;
	valid: boolean;
	errors: string[];
	workflow: Json;
}

function validate(files: string[] = []): { status: number | null; verdicts: Verdict[] } {
	const result = spawnSync(tsx, [validator, ...files], { cwd: repoRoot, encoding: 'utf8' });
	if (!result.stdout.trim().startsWith('[')) throw new Error(`the validator printed no verdicts: ${result.stdout}${result.stderr}`);
	return { status: result.status, verdicts: JSON.parse(result.stdout) as Verdict[] };
}

const runs = (steps: Json[]) => steps.map((step) => String(step.run ?? '')).join('\n');

describe('GitHub Actions workflows (GitHub\'s workflow parser)', () => {
	const { status, verdicts } = validate();
	const byFile = Object.fromEntries(verdicts.map((verdict) => [verdict.file, verdict]));
	const ci = byFile['.github/workflows/ci.yml'];
	const publish = byFile['.github/workflows/publish.yml'];

	it('finds every workflow file valid, CI and Publish among them', () => {
		expect(Object.keys(byFile)).toEqual(expect.arrayContaining(['.github/workflows/ci.yml', '.github/workflows/publish.yml']));
		expect(verdicts.filter((verdict) => !verdict.valid).map(({ file, errors }) => ({ file, errors }))).toEqual([]);
		expect(status).toBe(0);
	});

	it('reports a broken workflow (the parser can fail)', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'workflows-'));
		try {
			const file = path.join(dir, 'broken.yml');
			writeFileSync(file, 'name: broken\non: push\npermissions:\n  id-token: writ\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        run: echo both\n');
			const broken = validate([file]);
			expect(broken.status).toBe(1);
			expect(broken.verdicts[0].valid).toBe(false);
			expect(broken.verdicts[0].errors.join('\n')).toMatch(/Unexpected value 'writ'/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it('CI: install, lint, build, typecheck and jest on push and pull request; the end-to-end suites on a schedule and on demand', () => {
		const { on, jobs } = ci.workflow;
		expect(Object.keys(on).sort()).toEqual(['pull_request', 'push', 'schedule', 'workflow_dispatch']);
		const checks = runs(jobs.checks.steps);
		for (const command of ['npm ci', 'npm run lint', 'npm run build', 'npm run typecheck', 'npx jest']) expect(checks).toContain(command);
		expect(jobs['end-to-end'].if).toMatch(/schedule/);
		expect(jobs['end-to-end'].if).toMatch(/workflow_dispatch/);
		expect(runs(jobs['end-to-end'].steps)).toContain('npm run test:e2e');
		expect(ci.workflow.permissions).toEqual({ contents: 'read' });
	});

	it('Publish: on version tags and on demand with a dry-run input', () => {
		const { on } = publish.workflow;
		expect(on.push.tags).toEqual(['*.*.*']);
		expect(on.workflow_dispatch.inputs['dry-run']).toMatchObject({ type: 'boolean', default: true });
	});

	it('Publish: the job may mint an OIDC token (provenance, trusted publishing) and only read the repository', () => {
		expect(publish.workflow.jobs.publish.permissions).toEqual({ 'id-token': 'write', contents: 'read' });
	});

	it('Publish: npm registry set up for OIDC, identity gate and version check before the provenance publish, NPM_TOKEN as the fallback', () => {
		const steps: Json[] = publish.workflow.jobs.publish.steps;
		const setupNode = steps.find((step) => String(step.uses).startsWith('actions/setup-node@'))!;
		expect(setupNode.with['registry-url']).toBe('https://registry.npmjs.org');
		// npm 11.5+ (Node 24's) is what exchanges the OIDC token for trusted publishing.
		expect(Number(setupNode.with['node-version'])).toBeGreaterThanOrEqual(24);
		const index = (pattern: RegExp) => steps.findIndex((step) => pattern.test(String(step.run ?? '')));
		const gate = index(/node scripts\/publish-identity\.mjs --ci/);
		const versionCheck = index(/npm view .*version --registry=https:\/\/registry\.npmjs\.org/);
		const release = index(/^npm run release$/);
		expect(gate).toBeGreaterThan(-1);
		expect(versionCheck).toBeGreaterThan(gate);
		expect(release).toBeGreaterThan(versionCheck);
		expect(String(steps[versionCheck].run)).toContain('already on npm');
		expect(steps[release].env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}', NPM_CONFIG_PROVENANCE: 'true' });
		expect(String(steps[release].if)).toMatch(/dry-run/);
		const dryRun = steps.find((step) => /npm pack --dry-run/.test(String(step.run ?? '')))!;
		expect(String(dryRun.if)).toMatch(/inputs\.dry-run/);
	});

	it('npm run release is the n8n-node release flow, whose CI mode publishes with provenance', () => {
		const manifest = require(path.join(repoRoot, 'package.json'));
		expect(manifest.scripts.release).toBe('n8n-node release');
		// The installed CLI's release command: in GitHub Actions it lints, builds and runs npm publish with provenance.
		const source = readFileSync(path.join(repoRoot, 'node_modules', '@n8n', 'node-cli', 'dist', 'commands', 'release.js'), 'utf8');
		expect(source).toMatch(/const isCI = Boolean\(process\.env\.GITHUB_ACTIONS\)/);
		expect(source).toMatch(/\['publish'\][\s\S]{0,200}NPM_CONFIG_PROVENANCE: 'true'/);
	});
});
