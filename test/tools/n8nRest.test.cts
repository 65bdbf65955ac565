// scripts/n8n/rest.mjs's activateWorkflow, against a real HTTP server answering as n8n 2.41's publish endpoint does:
// publishing again only when n8n's parameter check threw (its regex watchdog on a busy machine), never when it found
// an issue. Run in a child Node process: jest cannot load ES modules.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const restModule = path.resolve(__dirname, '..', '..', 'scripts', 'n8n', 'rest.mjs');

const THREW = 'Cannot publish workflow: 1 node have configuration issues:\\n\\nNode \\"Get order\\":\\n  - Error validating node parameters';
const FOUND = 'Cannot publish workflow: 1 node have configuration issues:\\n\\nNode \\"Get order\\":\\n  - Missing or invalid required parameters: orderId';

const script = `
import { createServer } from 'node:http';
const { activateWorkflow } = await import(${JSON.stringify(restModule)});
// Per workflow: the publish answers in turn (the last one repeated), and what each publish request carried.
const answers = { twice: ['threw', 'threw', 'ok'], always: ['threw'], found: ['found'], once: ['ok'] };
const published = {};
const server = createServer((req, res) => {
	let body = '';
	req.on('data', (chunk) => { body += chunk; });
	req.on('end', () => {
		const [, id, action] = /^\\/rest\\/workflows\\/(\\w+)(?:\\/(\\w+))?$/.exec(req.url);
		const send = (status, value) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
		if (req.method === 'GET') return send(200, { data: { id, versionId: 'v-current' } });
		const sent = (published[id] ??= []);
		sent.push(JSON.parse(body).versionId);
		const answer = answers[id][Math.min(sent.length, answers[id].length) - 1];
		if (answer === 'ok') return send(200, { data: { id, active: true } });
		send(400, { code: 400, message: answer === 'threw' ? ${JSON.stringify(THREW)} : ${JSON.stringify(FOUND)}, meta: { validationError: true } });
	});
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = 'http://127.0.0.1:' + server.address().port;
const outcome = async (id, versionId) => {
	try { return { data: await activateWorkflow(url, 'cookie', id, versionId) }; } catch (error) { return { error: error.message.slice(0, 80) }; }
};
const results = { twice: await outcome('twice'), always: await outcome('always'), found: await outcome('found'), once: await outcome('once', 'v-edited') };
server.close();
process.stdout.write(JSON.stringify({ results, published }));
`;

describe("scripts/n8n/rest.mjs activateWorkflow: publishes again when n8n's parameter check threw, not when it found an issue", () => {
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
	const result = JSON.parse(run.stdout.slice(run.stdout.lastIndexOf('{"results"')) || '{}') as {
		results: Record<string, { data?: unknown; error?: string }>;
		published: Record<string, string[]>;
	};

	it('ran', () => {
		expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
	});

	it('publishes the current version again after a check that threw, and answers what the publication answered', () => {
		expect(result.results.twice).toEqual({ data: { id: 'twice', active: true } });
		expect(result.published.twice).toEqual(['v-current', 'v-current', 'v-current']);
	});

	it("gives up after three publications that all threw, with n8n's answer", () => {
		expect(result.results.always.error).toMatch(/^POST \/rest\/workflows\/always\/activate: HTTP 400 /);
		expect(result.published.always).toHaveLength(3);
	});

	it('does not publish again when n8n found an issue in a parameter', () => {
		expect(result.results.found.error).toMatch(/^POST \/rest\/workflows\/found\/activate: HTTP 400 /);
		expect(result.published.found).toEqual(['v-current']);
	});

	it('publishes the version it is given without reading the current one', () => {
		expect(result.results.once).toEqual({ data: { id: 'once', active: true } });
		expect(result.published.once).toEqual(['v-edited']);
	});
});
