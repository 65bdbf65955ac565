// The Ollang node as tools of an AI agent, through n8n's MCP Server Trigger and the official MCP TypeScript client:
// the example workflow "MCP server for AI agents" published in a real `n8n start` (its tools are the Ollang node's
// tool variant, `n8n-nodes-ollang.ollangTool`, with parameters the model fills through `$fromAI()`), then listed
// and called over Streamable HTTP as an MCP client does, without any model: the test plays the model. Every answer
// is checked against the sandbox's own state (its API, its request log, its content database).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import type { RunningN8n } from '../../scripts/n8n/runtime.mjs';
import {
	assertSimplifiedOrder,
	assertNoKeyLeft,
	exampleNode,
	N8nUserFolder,
	PACKAGE_NAME,
	readExample,
	SandboxClient,
	testCredentials,
	waitFor,
	type Fixtures,
	type LoggedRequest,
} from './harness.mts';

type Json = Record<string, unknown>;

const EXAMPLE_FILE = 'ollang-mcp-server.json';
const TRIGGER_NODE = 'MCP Server Trigger';
const OLLANG_TOOL_NODE = `${PACKAGE_NAME}.ollangTool`;

/** The example's tool nodes, by the tool name an MCP client sees (n8n's nodeNameToToolName: spaces become _). */
const TOOLS = {
	getOrder: 'Get_order',
	getConsumption: 'Get_consumption',
	requestHumanReview: 'Request_human_review',
	searchMemories: 'Search_memories',
	importContent: 'Import_content',
} as const;

/** What each tool's description must speak of (besides being the one set on the node). */
const DESCRIPTION_WORDS: Record<string, RegExp[]> = {
	[TOOLS.getOrder]: [/order/i, /status/i],
	[TOOLS.getConsumption]: [/consumption/i, /period/i, /credits/i],
	[TOOLS.requestHumanReview]: [/human (linguist )?review/i, /spends credits/i],
	[TOOLS.searchMemories]: [/translation memor/i, /title/i],
	[TOOLS.importContent]: [/import/i, /content database/i, /target language/i],
};

const example = readExample(EXAMPLE_FILE);
const mcpPath = String(exampleNode(example, TRIGGER_NODE).parameters.path);

interface FromAiArgument {
	key: string;
	description: string;
	type: string;
}

/** The `$fromAI('key', 'description', 'type')` calls in a node's parameters, read from the example's JSON. */
function fromAiArguments(parameters: unknown): FromAiArgument[] {
	const found: FromAiArgument[] = [];
	const pattern = /\$fromAI\(\s*'([^']*)'\s*,\s*'((?:[^'\\]|\\.)*)'\s*,\s*'([^']*)'\s*\)/g;
	const visit = (value: unknown): void => {
		if (typeof value === 'string') {
			for (const match of value.matchAll(pattern)) found.push({ key: match[1], description: match[2].replace(/\\'/g, "'"), type: match[3] });
		} else if (value !== null && typeof value === 'object') {
			for (const entry of Object.values(value)) visit(entry);
		}
	};
	visit(parameters);
	return found;
}

/** The example's tool nodes, each with its tool name, description and `$fromAI` arguments. */
const toolNodes = example.nodes
	.filter((node) => node.type === OLLANG_TOOL_NODE)
	.map((node) => ({
		node,
		toolName: node.name.replace(/[^a-zA-Z0-9_-]+/g, '_'),
		description: String(node.parameters.toolDescription),
		arguments: fromAiArguments(node.parameters),
	}));

interface ToolResult {
	isError?: boolean;
	content: Array<{ type: string; text?: string }>;
}

function resultText(result: ToolResult): string {
	return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('\n');
}

/** A successful tool result: the JSON of the items the tool node output. */
function resultItems(tool: string, result: ToolResult): Json[] {
	const text = resultText(result);
	assert.notEqual(result.isError, true, `${tool} answered an error: ${text}`);
	const parsed = JSON.parse(text) as unknown;
	assert.ok(Array.isArray(parsed), `${tool} answered ${text.slice(0, 200)}, not a list of items`);
	return parsed as Json[];
}

describe('the Ollang node as MCP tools: n8n\'s MCP Server Trigger driven by the official MCP client', { timeout: 10 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let fixtures: Fixtures;
	let n8n: N8nUserFolder;
	let server: RunningN8n | undefined;
	let client: Client | undefined;
	const summary: string[] = [];

	async function connect(): Promise<Client> {
		const mcp = new Client({ name: 'n8n-nodes-ollang-e2e', version: '1.0.0' });
		await mcp.connect(new StreamableHTTPClientTransport(new URL(`/mcp/${mcpPath}`, server!.url)));
		return mcp;
	}

	async function call(name: string, args: Json): Promise<ToolResult> {
		return (await client!.callTool({ name, arguments: args })) as ToolResult;
	}

	async function apiRequestsSince(count: number): Promise<LoggedRequest[]> {
		return (await sandbox.requests()).slice(count);
	}

	before(async () => {
		sandbox = await SandboxClient.start();
		fixtures = await sandbox.fixtures();
		n8n = N8nUserFolder.create('mcp');
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		await n8n.importWorkflows([example]);
		await n8n.publish(example.id);
		server = await n8n.start();
		// The production webhook is registered when n8n activates the published workflow during its start.
		client = await waitFor('the MCP endpoint of the published workflow', async () => {
			try {
				return await connect();
			} catch {
				return undefined;
			}
		}, { timeoutMs: 60_000, intervalMs: 1000 });
	});

	after(async () => {
		if (summary.length > 0) console.log(['MCP tools, as an MCP client saw and called them:', ...summary].join('\n'));
		await client?.close().catch(() => undefined);
		await server?.stop();
		await sandbox?.stop();
		n8n?.remove();
	});

	it('lists the five Ollang tools, each with its description and the $fromAI parameters as its input schema', async () => {
		assert.equal(toolNodes.length, 5, 'the example has five Ollang tool nodes');
		const { tools } = await client!.listTools();
		assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.values(TOOLS).sort());
		for (const expected of toolNodes) {
			const tool = tools.find((candidate) => candidate.name === expected.toolName);
			assert.ok(tool, `no tool ${expected.toolName}`);
			assert.equal(tool.description, expected.description, `${tool.name}: the description set on the node`);
			assert.ok((tool.description ?? '').length >= 60, `${tool.name}: a description a model can act on`);
			for (const word of DESCRIPTION_WORDS[tool.name]) assert.match(tool.description ?? '', word, `${tool.name}'s description`);

			const schema = tool.inputSchema as { type: string; properties?: Record<string, Json>; required?: string[]; additionalProperties?: unknown };
			assert.equal(schema.type, 'object');
			const keys = expected.arguments.map((argument) => argument.key);
			assert.ok(keys.length > 0, `${tool.name} has $fromAI parameters`);
			assert.deepEqual(Object.keys(schema.properties ?? {}).sort(), [...keys].sort(), `${tool.name}: the schema's properties`);
			assert.deepEqual([...(schema.required ?? [])].sort(), [...keys].sort(), `${tool.name}: every parameter required`);
			for (const argument of expected.arguments) {
				const property = schema.properties![argument.key];
				assert.equal(property.description, argument.description, `${tool.name}.${argument.key}: the description for the model`);
				if (argument.type === 'json') {
					// n8n's schema for a 'json' $fromAI parameter (a non-empty object or list, checked when called) reaches
					// the client as its description alone, with no type: the description has to tell the model the shape.
					assert.deepEqual(property, { description: argument.description }, `${tool.name}.${argument.key}`);
				} else {
					assert.equal(property.type, argument.type, `${tool.name}.${argument.key}: ${JSON.stringify(property)}`);
				}
			}
			summary.push(`  ${tool.name}: input ${keys.map((key) => `${key}: ${expected.arguments.find((argument) => argument.key === key)!.type}`).join(', ')}; inputSchema ${JSON.stringify(schema)}`);
		}
	});

	it('Get order answers the order simplified from what the API gives; a malformed or unknown ID is a tool error, and n8n keeps serving', async () => {
		const orderId = fixtures.orders.deliveredLevel0;
		const items = resultItems(TOOLS.getOrder, await call(TOOLS.getOrder, { orderId }));
		assert.equal(items.length, 1);
		const apiOrder = (await sandbox.get(`/integration/orders/${orderId}`)) as Json;
		assertSimplifiedOrder(items[0], apiOrder);
		summary.push(
			`  ${TOOLS.getOrder}({orderId}): the order simplified, its fields equal to GET /integration/orders/${orderId} (${JSON.stringify(items[0]).length} bytes of JSON; the API's answer ${JSON.stringify(apiOrder).length})`,
		);

		// A malformed ID: refused by the node before anything is sent.
		let seen = (await sandbox.requests()).length;
		const malformed = await call(TOOLS.getOrder, { orderId: '../credits' });
		assert.equal(malformed.isError, true, resultText(malformed));
		assert.match(resultText(malformed), /Invalid Order.*must not contain '\/'/);
		assert.deepEqual(await apiRequestsSince(seen), [], 'nothing sent for a malformed ID');

		// A well-formed ID the service does not know: the API's 404, as the tool's error.
		seen = (await sandbox.requests()).length;
		const unknownId = 'ffffffffffffffffffffffff';
		const unknown = await call(TOOLS.getOrder, { orderId: unknownId });
		assert.equal(unknown.isError, true, resultText(unknown));
		assert.match(resultText(unknown), /not found|could not be found|404/i);
		assert.deepEqual((await apiRequestsSince(seen)).map((request) => `${request.method} ${request.path} ${request.status}`), [
			`GET /integration/orders/${unknownId} 404`,
		]);

		// An argument of the wrong type: refused by the tool's input schema.
		seen = (await sandbox.requests()).length;
		const wrongType = await call(TOOLS.getOrder, { orderId: 12345 });
		assert.equal(wrongType.isError, true, resultText(wrongType));
		assert.match(resultText(wrongType), /orderId|schema|string/i);
		assert.deepEqual(await apiRequestsSince(seen), [], 'nothing sent for an argument of the wrong type');

		// Still serving: the tools list again, and a good call works.
		assert.equal((await client!.listTools()).tools.length, 5);
		assert.equal(resultItems(TOOLS.getOrder, await call(TOOLS.getOrder, { orderId })).length, 1);
		assert.equal(server!.child.exitCode, null, 'n8n is still running');
		summary.push(
			`  ${TOOLS.getOrder}: '../credits' -> isError "${firstLine(malformed)}"; unknown ID -> isError "${firstLine(unknown)}"; orderId 12345 -> isError "${firstLine(wrongType)}"`,
		);
	});

	it('Get consumption answers the lines of the period the model asks for, simplified from what the API lists', async () => {
		const now = await sandbox.now();
		const from = new Date(now.getTime() - 3 * 86_400_000).toISOString();
		const to = new Date(now.getTime() - 1 * 86_400_000).toISOString();
		const inPeriod = await sandbox.getAllPages<Json>('/integration/consumption', { 'filter[from]': from, 'filter[to]': to });
		const everything = await sandbox.getAllPages<Json>('/integration/consumption');
		assert.ok(inPeriod.length > 0, 'the seeded history has lines in the period');
		assert.ok(everything.length > inPeriod.length, 'the seeded history has lines outside the period too');

		const limit = 100;
		const items = resultItems(TOOLS.getConsumption, await call(TOOLS.getConsumption, { from, to, limit }));
		assert.equal(items.length, Math.min(limit, inPeriod.length));
		const known = new Map(inPeriod.map((line) => [String(line.id), line]));
		assert.equal(new Set(items.map((item) => item.id)).size, items.length, 'no line twice');
		for (const item of items) {
			assertSimplifiedLine(item, known.get(String(item.id)));
			const at = Date.parse(String(item.occurredAt));
			assert.ok(at >= Date.parse(from) && at <= Date.parse(to), `line ${String(item.id)} occurred at ${String(item.occurredAt)}, outside ${from} .. ${to}`);
		}

		// A period the wrong way round: the node's refusal, nothing sent.
		const seen = (await sandbox.requests()).length;
		const reversed = await call(TOOLS.getConsumption, { from: to, to: from, limit });
		assert.equal(reversed.isError, true, resultText(reversed));
		assert.match(resultText(reversed), /From.*must not be after To/);
		assert.deepEqual(await apiRequestsSince(seen), []);
		summary.push(
			`  ${TOOLS.getConsumption}({from, to, limit: ${limit}}): ${items.length} lines of ${inPeriod.length} in the period (${everything.length} in all), ${JSON.stringify(items).length} bytes of JSON; from after to -> isError "${firstLine(reversed)}"`,
		);
	});

	it('Request human review is applied exactly once; asked again for the same order, the tool answers with the API\'s refusal and nothing more is charged', async () => {
		const orderId = fixtures.orders.completedLevel0;
		const path = `/integration/orders/${orderId}/human-review`;
		const before = await sandbox.get<{ level: number; status: string }>(`/integration/orders/${orderId}`);
		assert.equal(before.level, 0);
		const creditsBefore = await sandbox.get<{ usedCredits: number }>('/integration/credits');
		const seen = (await sandbox.requests()).length;

		const first = await call(TOOLS.requestHumanReview, { orderId });
		assert.deepEqual(resultItems(TOOLS.requestHumanReview, first), [{ success: true, orderId, humanReviewRequested: true }]);
		const afterFirst = await sandbox.get<{ level: number; status: string }>(`/integration/orders/${orderId}`);
		assert.equal(afterFirst.level, 1, 'the order now includes human review');
		const creditsAfterFirst = await sandbox.get<{ usedCredits: number }>('/integration/credits');
		const charged = creditsAfterFirst.usedCredits - creditsBefore.usedCredits;
		assert.ok(charged > 0, `the review was charged (${charged} credits)`);

		const second = await call(TOOLS.requestHumanReview, { orderId });
		// Asked again, the request is sent again: the API refuses it (the order is under review now), and the model
		// gets the API's refusal in its words, not "done" (a tool call is the model asking, never a retry).
		assert.equal(second.isError, true, resultText(second));
		assert.match(resultText(second), /The Ollang API answered 400/);
		const creditsAfterSecond = await sandbox.get<{ usedCredits: number }>('/integration/credits');
		assert.equal(creditsAfterSecond.usedCredits, creditsAfterFirst.usedCredits, 'no second charge');
		const posts = (await apiRequestsSince(seen)).filter((request) => request.method === 'POST' && request.path === path);
		assert.deepEqual(posts.map((request) => request.status), [204, 400], 'one review applied, the repeat refused by the API, no retry');
		summary.push(
			`  ${TOOLS.requestHumanReview}({orderId}): applied once (level 0 -> 1, ${charged} credits); again -> ${resultText(second)}, no second charge`,
		);
	});

	it('Search memories answers the memories whose title contains the text, as the API lists them', async () => {
		const memories = await sandbox.get<Json[]>('/integration/memories');
		assert.ok(memories.length >= 2, 'the sandbox has memories to search');
		const title = String(memories[0].title);
		// A piece of the first title, in other case: the search is case-insensitive.
		const search = title.slice(0, Math.max(3, Math.ceil(title.length / 2))).toUpperCase();
		const expected = memories.filter((memory) => String(memory.title).toLowerCase().includes(search.toLowerCase()));

		const found = resultItems(TOOLS.searchMemories, await call(TOOLS.searchMemories, { titleContains: search }));
		assert.deepEqual(found, expected);
		const all = resultItems(TOOLS.searchMemories, await call(TOOLS.searchMemories, { titleContains: '' }));
		assert.deepEqual(all, memories);
		const none = resultItems(TOOLS.searchMemories, await call(TOOLS.searchMemories, { titleContains: 'no memory has this title 7f3c' }));
		assert.deepEqual(none, []);
		summary.push(`  ${TOOLS.searchMemories}({titleContains: "${search}"}): ${found.length} of ${memories.length}; "" -> all ${all.length}; no match -> []`);
	});

	it('Import content writes the translations the model gives into the content database', async () => {
		const translations = [
			{ sourceText: 'Add to cart', targetText: 'In den Warenkorb', elementId: 'button.addToCart', type: 'ui' },
			{ sourceText: 'Checkout', targetText: 'Zur Kasse' },
		];
		const items = resultItems(TOOLS.importContent, await call(TOOLS.importContent, { targetLanguage: 'de', translations }));
		assert.deepEqual(items, [{ success: true, targetLanguage: 'de', unitsContributed: 2, requests: 1 }]);
		const content = await sandbox.admin<Array<{ sourceText: string; elementId: string | null; type: string; targets: Record<string, { targetText: string }> }>>(
			'GET',
			'content',
		);
		for (const unit of translations) {
			const term = content.find((candidate) => candidate.sourceText === unit.sourceText);
			assert.ok(term, `the content database has "${unit.sourceText}"`);
			assert.equal(term.targets.de?.targetText, unit.targetText);
			if (unit.elementId) assert.equal(term.elementId, unit.elementId);
			if (unit.type) assert.equal(term.type, unit.type);
		}

		// Units that are not what the tool takes: the node's refusal names the problem; nothing imported.
		const seen = (await sandbox.requests()).length;
		const missingTarget = await call(TOOLS.importContent, { targetLanguage: 'fr', translations: [{ sourceText: 'Checkout' }] });
		assert.equal(missingTarget.isError, true, resultText(missingTarget));
		assert.match(resultText(missingTarget), /targetText.*must not be empty/);
		assert.deepEqual(await apiRequestsSince(seen), []);
		// An empty list: refused by the tool's input check (a 'json' parameter must not be empty), nothing sent.
		const empty = await call(TOOLS.importContent, { targetLanguage: 'fr', translations: [] });
		assert.equal(empty.isError, true, resultText(empty));
		assert.deepEqual(await apiRequestsSince(seen), []);
		const after = await sandbox.admin<Array<{ sourceText: string; targets: Record<string, unknown> }>>('GET', 'content');
		assert.equal(after.find((term) => term.sourceText === 'Checkout')?.targets.fr, undefined);
		summary.push(
			`  ${TOOLS.importContent}({targetLanguage: "de", translations: [2 units]}): both in the content database; a unit without targetText -> isError "${firstLine(missingTarget)}"; [] -> isError "${firstLine(empty)}"`,
		);
	});

	it('offers the same tools over SSE, the older transport, on the same path', async () => {
		const sse = new Client({ name: 'n8n-nodes-ollang-e2e-sse', version: '1.0.0' });
		await sse.connect(new SSEClientTransport(new URL(`/mcp/${mcpPath}`, server!.url)));
		try {
			const { tools } = await sse.listTools();
			assert.deepEqual(tools.map((tool) => tool.name).sort(), Object.values(TOOLS).sort());
			const orderId = fixtures.orders.byStatus.pending;
			const result = (await sse.callTool({ name: TOOLS.getOrder, arguments: { orderId } })) as ToolResult;
			const items = resultItems(TOOLS.getOrder, result);
			assert.equal(items.length, 1);
			assertSimplifiedOrder(items[0], (await sandbox.get(`/integration/orders/${orderId}`)) as Json);
			summary.push(`  over SSE: ${tools.length} tools listed, ${TOOLS.getOrder} answered the order`);
		} finally {
			await sse.close();
		}
	});

	it('left no API key in n8n\'s database, files or output', async () => {
		// Scanned once n8n has stopped: a running n8n 1.x creates and deletes SQLite's journal file as it writes.
		await client?.close();
		client = undefined;
		await server?.stop();
		server = undefined;
		assertNoKeyLeft(n8n, sandbox.info.keys);
	});
});

/** A simplified consumption line: the API line's values, the requestor by name only (no e-mail). */
function assertSimplifiedLine(item: Json, apiLine: Json | undefined): void {
	assert.ok(apiLine, `line ${String(item.id)} is one the API lists in the period`);
	for (const key of ['orderId', 'orderName', 'orderType', 'service', 'provider', 'creditsUsed', 'usdEquivalent', 'occurredAt']) {
		assert.deepEqual(item[key], apiLine[key], `line ${String(item.id)}.${key}`);
	}
	assert.equal(item.requestedBy, (apiLine.createdBy as Json).name);
	assert.equal(item.createdBy, undefined, 'no requestor e-mail or ID');
}

function firstLine(result: ToolResult): string {
	return resultText(result).split('\n')[0].slice(0, 140);
}
