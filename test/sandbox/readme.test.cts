import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AI_ACTOR_ID, API_ROUTES, SYSTEM_ACTOR_ID } from '../../sandbox/index.cts';

/** sandbox/README.md stays true to the sandbox: every route served is in its endpoint table, and the event actors are right. */
const readme = readFileSync(join(__dirname, '..', '..', 'sandbox', 'README.md'), 'utf8');

function section(title: string): string {
	const start = readme.indexOf(`\n## ${title}\n`);
	expect(start).toBeGreaterThan(-1);
	const end = readme.indexOf('\n## ', start + 1);
	return readme.slice(start, end < 0 ? undefined : end);
}

describe('sandbox/README.md', () => {
	it('the endpoint table lists every route the sandbox serves (method and path, in the first column of a row)', () => {
		const rows = section('Endpoints')
			.split('\n')
			.filter((line) => line.startsWith('| `'))
			.map((line) => line.split('|')[1]);
		const listed = new Set<string>();
		for (const cell of rows) {
			for (const [, method, path] of cell.matchAll(/`(GET|HEAD|POST|PATCH|PUT|DELETE) (\/[^\s`?]*)/g)) listed.add(`${method} ${path}`);
		}
		const served = API_ROUTES.map((route) => `${route.method} ${route.pattern}`);
		expect(served.filter((route) => !listed.has(route))).toEqual([]);
		expect([...listed].filter((route) => !served.includes(route))).toEqual([]);
	});

	it('gives the actorId of AI and system delivery events as the sandbox writes them', () => {
		const start = readme.indexOf('\n- Event actors:');
		expect(start).toBeGreaterThan(-1);
		const actors = readme.slice(start, readme.indexOf('\n- ', start + 1)).replace(/\s+/g, ' ');
		expect(actors).toContain(`\`ai\` (actorId \`${AI_ACTOR_ID}\`)`);
		expect(actors).toContain(`\`system\` (\`${SYSTEM_ACTOR_ID}\`)`);
		expect(actors).not.toMatch(/null/);
	});

	it('says which statuses Get Order Language Pairs takes, from which source, and what happens to the SDK tests\' completed', () => {
		const start = readme.indexOf('- **Order language pairs.**');
		expect(start).toBeGreaterThan(-1);
		const paragraph = readme.slice(start, readme.indexOf('\n- **', start + 1));
		for (const words of ['`unassigned`', '`assigned`', '`status=completed`', '400', 'SDK', 'skill']) expect(paragraph).toContain(words);
	});
});
