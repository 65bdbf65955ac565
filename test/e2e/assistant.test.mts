// The example "Ollang: assistant" (Chat Trigger, AI Agent, chat model, window memory, five Ollang tools) in a real
// `n8n start`, chatted with over the Chat Trigger's hosted-chat webhook. The chat model is the example's own OpenAI
// Chat Model node, pointed through its credential's Base URL at a scripted OpenAI-compatible endpoint in this test:
// the test plays the model (it picks the tool calls and writes the answer from the tool results it is sent), so the
// run needs no account, and n8n's agent, tool calling, memory and our tool nodes are all the real ones.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';

import type { RunningN8n } from '../../scripts/n8n/runtime.mjs';
import {
	assertNoKeyLeft,
	exampleNode,
	N8nUserFolder,
	readExample,
	SandboxClient,
	testCredentials,
	type Fixtures,
	type LoggedRequest,
	waitFor,
	type WorkflowJson,
} from './harness.mts';

type Json = Record<string, unknown>;

const EXAMPLE_FILE = 'ollang-assistant.json';
const TRIGGER_NODE = 'When chat message received';
const AGENT_NODE = 'Ollang assistant';
const MODEL_NODE = 'Chat model';
const MODEL_CREDENTIAL = { id: 'ScriptedChatMdl1', name: 'Scripted chat model (test)' };
const MODEL_KEY = 'sk-scripted-model-key-for-the-e2e-test';

/** The example's tools, by the name the model sees (n8n's tool names: spaces become _). */
const TOOL_NAMES = ['Find_orders', 'Get_order', 'Get_credit_balance', 'Get_consumption', 'Request_human_review'];

interface ToolCall {
	id: string;
	type: 'function';
	function: { name: string; arguments: string };
}

interface ChatMessage {
	role: string;
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: ToolCall[];
	tool_call_id?: string;
}

interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: Json } }>;
	stream?: boolean;
}

type ModelReply = { content: string } | { toolCalls: Array<{ name: string; arguments: Json }> };

const text = (message: ChatMessage): string =>
	typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => part.text ?? '').join('');

/**
 * An OpenAI-compatible `POST /v1/chat/completions` that answers as `reply` decides from the conversation it is sent
 * (plain JSON, or server-sent chunks when the client asks to stream). Every request is kept for the assertions.
 */
class ScriptedModel {
	readonly requests: ChatRequest[] = [];
	private server: Server | undefined;
	private calls = 0;

	constructor(private readonly reply: (request: ChatRequest) => ModelReply) {}

	get baseUrl(): string {
		return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
	}

	async start(): Promise<void> {
		this.server = createServer((request, response) => void this.handle(request, response));
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
	}

	async stop(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
			response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${request.url}` } }));
			return;
		}
		if (request.headers.authorization !== `Bearer ${MODEL_KEY}`) {
			response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'wrong key' } }));
			return;
		}
		const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
		this.requests.push(body);
		let reply: ModelReply;
		try {
			reply = this.reply(body);
		} catch (error) {
			response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: String(error) } }));
			return;
		}
		this.calls += 1;
		const id = `chatcmpl-${this.calls}`;
		const message =
			'content' in reply
				? { role: 'assistant', content: reply.content }
				: {
						role: 'assistant',
						content: null,
						tool_calls: reply.toolCalls.map((call, index): ToolCall => ({
							id: `call_${this.calls}_${index}`,
							type: 'function',
							function: { name: call.name, arguments: JSON.stringify(call.arguments) },
						})),
					};
		const finishReason = 'content' in reply ? 'stop' : 'tool_calls';
		const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
		const created = Math.floor(Date.now() / 1000);
		if (!body.stream) {
			response.writeHead(200, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finishReason }], usage }));
			return;
		}
		const delta = { ...message, tool_calls: message.tool_calls?.map((call, index) => ({ index, ...call })) };
		response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
		const send = (chunk: Json) => response.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, ...chunk })}\n\n`);
		send({ choices: [{ index: 0, delta, finish_reason: null }] });
		send({ choices: [{ index: 0, delta: {}, finish_reason: finishReason }], usage });
		response.end('data: [DONE]\n\n');
	}
}

/** A tool's result as the agent hands it to the model: the tool node's output items, as JSON text. */
function toolResult(request: ChatRequest, toolName: string): Json {
	const assistant = request.messages.find((message) => message.tool_calls?.some((call) => call.function.name === toolName));
	const callId = assistant?.tool_calls?.find((call) => call.function.name === toolName)?.id;
	const message = request.messages.find((candidate) => candidate.role === 'tool' && candidate.tool_call_id === callId);
	if (!message) throw new Error(`no ${toolName} result among the messages: ${JSON.stringify(request.messages).slice(0, 2000)}`);
	let parsed: unknown = JSON.parse(text(message));
	while (Array.isArray(parsed)) parsed = parsed[0];
	if (parsed && typeof parsed === 'object' && 'json' in parsed) parsed = (parsed as { json: unknown }).json;
	if (!parsed || typeof parsed !== 'object') throw new Error(`${toolName} result is not an object: ${text(message)}`);
	return parsed as Json;
}

/** The test's copy of the example: the chat model's credential set, and the chat hosted so a client can post to it. */
function testWorkflow(example: WorkflowJson): WorkflowJson {
	const workflow = structuredClone(example);
	const trigger = exampleNode(workflow, TRIGGER_NODE);
	trigger.parameters = { ...trigger.parameters, public: true, mode: 'hostedChat', options: { responseMode: 'lastNode' } };
	exampleNode(workflow, MODEL_NODE).credentials = { openAiApi: MODEL_CREDENTIAL };
	return workflow;
}

const QUESTION = (orderId: string) => `What is the status of order ${orderId}, and how many credits do we have left?`;
const FOLLOW_UP = 'Thanks. Which order did I ask about?';

describe('the example "Ollang: assistant": an AI Agent with Ollang tools, chatted with in a real n8n', { timeout: 10 * 60_000 }, () => {
	const example = readExample(EXAMPLE_FILE);
	const webhookId = String(exampleNode(example, TRIGGER_NODE).webhookId);
	let sandbox: SandboxClient;
	let fixtures: Fixtures;
	let n8n: N8nUserFolder;
	let server: RunningN8n | undefined;
	let answerSent = '';

	const model = new ScriptedModel((request) => {
		const last = request.messages[request.messages.length - 1];
		if (last.role === 'tool') {
			const order = toolResult(request, 'Get_order');
			const wallet = toolResult(request, 'Get_credit_balance');
			answerSent = `Order "${String(order.name)}" is ${String(order.status)}. Credit wallet: ${JSON.stringify(wallet)}.`;
			return { content: answerSent };
		}
		const question = text(last);
		const orderId = /\b[0-9a-f]{24}\b/.exec(question)?.[0];
		if (orderId) return { toolCalls: [{ name: 'Get_order', arguments: { orderId } }, { name: 'Get_credit_balance', arguments: {} }] };
		// The follow-up: answered from the conversation the memory gives back.
		const earlier = request.messages.filter((message) => message.role === 'user').map(text).find((content) => /\b[0-9a-f]{24}\b/.test(content));
		return { content: `You asked about order ${/\b[0-9a-f]{24}\b/.exec(earlier ?? '')?.[0] ?? 'none (no earlier question in the conversation)'}.` };
	});

	async function chat(sessionId: string, chatInput: string): Promise<Json> {
		const response = await fetch(new URL(`/webhook/${webhookId}/chat`, server!.url), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput }),
		});
		const body = await response.text();
		assert.equal(response.status, 200, `chat answered HTTP ${response.status}: ${body.slice(0, 500)}`);
		return JSON.parse(body) as Json;
	}

	before(async () => {
		await model.start();
		sandbox = await SandboxClient.start();
		fixtures = await sandbox.fixtures();
		n8n = N8nUserFolder.create('assistant');
		await n8n.install();
		await n8n.importCredentials([
			...testCredentials(sandbox),
			{ ...MODEL_CREDENTIAL, type: 'openAiApi', data: { apiKey: MODEL_KEY, url: model.baseUrl } },
		]);
		const workflow = testWorkflow(example);
		await n8n.importWorkflows([workflow]);
		await n8n.publish(workflow.id);
		server = await n8n.start();
		// The hosted chat's webhook is registered when n8n activates the published workflow during its start.
		await waitFor('the chat webhook of the published workflow', async () => {
			const response = await fetch(new URL(`/webhook/${webhookId}/chat`, server!.url), { method: 'GET' });
			await response.arrayBuffer();
			return response.status !== 404;
		}, { timeoutMs: 60_000, intervalMs: 1000 });
	});

	after(async () => {
		await server?.stop();
		await sandbox?.stop();
		await model.stop();
		n8n?.remove();
	});

	it('answers a question with two Ollang tools the model called, from what the API holds', async () => {
		const orderId = fixtures.orders.deliveredLevel0;
		await sandbox.clearRequests();

		const reply = await chat('session-1', QUESTION(orderId));

		// The model was offered the five tools, each with a description and its $fromAI parameters as a schema.
		const first = model.requests[0];
		assert.ok(first, 'the agent called the chat model');
		assert.deepEqual((first.tools ?? []).map((tool) => tool.function.name).sort(), [...TOOL_NAMES].sort());
		for (const tool of first.tools ?? []) assert.ok((tool.function.description ?? '').length >= 60, `${tool.function.name} has a description a model can act on`);
		const getOrder = first.tools!.find((tool) => tool.function.name === 'Get_order')!;
		assert.deepEqual(Object.keys((getOrder.function.parameters?.properties ?? {}) as Json), ['orderId']);
		const systemMessage = String((exampleNode(example, AGENT_NODE).parameters.options as Json).systemMessage);
		assert.equal(text(first.messages[0]), systemMessage, 'the example\'s system message comes first');

		// The tools ran against the API: the order and the wallet were read, nothing else was sent.
		const sent = (await sandbox.requests()).map((request: LoggedRequest) => `${request.method} ${request.path} ${request.status}`).sort();
		assert.deepEqual(sent, [`GET /integration/credits 200`, `GET /integration/orders/${orderId} 200`].sort());

		// The model saw the simplified order (no finance data) and the wallet as the API gives it.
		const second = model.requests[model.requests.length - 1];
		const order = await sandbox.get<Json>(`/integration/orders/${orderId}`);
		const toolOrder = toolResult(second, 'Get_order');
		assert.equal(toolOrder.id, orderId);
		assert.equal(toolOrder.status, order.status);
		assert.equal(toolOrder.finance, undefined, 'Simplify left finance data out of the model\'s context');
		assert.deepEqual(toolResult(second, 'Get_credit_balance'), await sandbox.get<Json>('/integration/credits'));

		// And the chat got the model's answer.
		assert.equal(reply.output, answerSent);
		assert.match(String(reply.output), new RegExp(`is ${String(order.status)}\\.`));
		console.log(`assistant: ${model.requests.length} model calls, tools offered ${TOOL_NAMES.join(', ')}; answer: ${String(reply.output)}`);
	});

	it('remembers the conversation of a chat session (window memory) and keeps sessions apart', async () => {
		const orderId = fixtures.orders.deliveredLevel0;
		const before = model.requests.length;

		const sameSession = await chat('session-1', FOLLOW_UP);
		const otherSession = await chat('session-2', FOLLOW_UP);

		const followUp = model.requests[before];
		assert.ok(followUp.messages.some((message) => message.role === 'user' && text(message) === QUESTION(orderId)), 'the earlier question is in the model\'s context');
		assert.equal(sameSession.output, `You asked about order ${orderId}.`);
		assert.equal(otherSession.output, 'You asked about order none (no earlier question in the conversation).');
	});

	it('left no API key in n8n\'s database, files or output', async () => {
		await server?.stop();
		server = undefined;
		assertNoKeyLeft(n8n, sandbox.info.keys);
	});
});
