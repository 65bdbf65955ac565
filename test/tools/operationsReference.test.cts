// docs/operations.md is generated from the built nodes (scripts/docs/operations.mjs): this fails when the committed
// page is not what the current build generates. Needs a build (npm test builds before jest; alone: npm run build).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const script = path.join(repoRoot, 'scripts', 'docs', 'operations.mjs');
const page = path.join(repoRoot, 'docs', 'operations.md');

function check(pageFile: string) {
	const result = spawnSync(process.execPath, [script, '--check', '--page', pageFile], { cwd: repoRoot, encoding: 'utf8' });
	return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe('docs/operations.md, the generated operations reference', () => {
	it('is what `npm run docs:operations` generates from the current build', () => {
		const result = check(page);
		// On failure the script's message names the command that regenerates the page.
		expect(result).toEqual({ status: 0, output: 'docs/operations.md matches the build.' });
	});

	it('a stale page fails the check, which says where it differs and how to regenerate it', () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'ollang-operations-'));
		const stale = path.join(dir, 'operations.md');
		const lines = readFileSync(page, 'utf8').split('\n');
		const defaultRow = lines.findIndex((line) => line.startsWith('| Limit | `limit` |'));
		lines[defaultRow] = lines[defaultRow].replace('`50`', '`100`');
		writeFileSync(stale, lines.join('\n'));
		const result = check(stale);
		expect(result.status).toBe(1);
		expect(result.output).toContain(`from line ${defaultRow + 1} on`);
		expect(result.output).toContain('Regenerate it: npm run build && npm run docs:operations');
	});

	it('names every operation of every resource, every trigger event and the credential', () => {
		const text = readFileSync(page, 'utf8');
		const { Ollang } = require(path.join(repoRoot, 'dist', 'nodes', 'Ollang', 'Ollang.node.js'));
		const { OllangTrigger } = require(path.join(repoRoot, 'dist', 'nodes', 'OllangTrigger', 'OllangTrigger.node.js'));
		type Options = { name: string; type: string; options?: Array<{ name: string; value: string }>; displayOptions?: { show?: { resource?: string[] } } };
		const node = new Ollang().description.properties as Options[];
		const resources = node.find((property) => property.name === 'resource')!.options!;
		const headings = resources.flatMap((resource) =>
			node
				.filter((property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource.value))
				.flatMap((property) => property.options!.map((operation) => `#### ${resource.name}: ${operation.name}`)),
		);
		expect(headings.length).toBeGreaterThanOrEqual(53);
		const events = (new OllangTrigger().description.properties as Options[]).find((property) => property.name === 'event')!.options!;
		for (const heading of [...headings, ...events.map((event) => `### Event: ${event.name}`), '## Ollang API credential']) {
			expect(text.split('\n')).toContain(heading);
		}
	});
});
