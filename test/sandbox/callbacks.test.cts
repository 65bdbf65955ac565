import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.cts';
import { call } from './helpers.cts';

/** A real HTTP receiver on loopback: records every request; `answer` decides each response (default 200). */
interface Received {
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
	body: any;
}

class Receiver {
	readonly received: Received[] = [];
	answer: (request: Received, response: ServerResponse) => void = (_request, response) => response.writeHead(200).end('ok');
	private server: Server | undefined;
	url = '';

	async start(): Promise<void> {
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined };
				this.received.push(request);
				this.answer(request, res);
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	async stop(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise<void>((resolve) => this.server?.close(() => resolve()));
	}
}

const LOOPBACK: SandboxOptions = { quiet: true, callbacks: { allowLoopback: true, repeatProbability: 0 } };

function useWorld(options: SandboxOptions = LOOPBACK): { sandbox: () => Sandbox; receiver: Receiver } {
	const receiver = new Receiver();
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		await receiver.start();
		sandbox = await startSandbox(options);
	});
	afterAll(async () => {
		await sandbox?.close();
		await receiver.stop();
	});
	beforeEach(() => {
		receiver.received.length = 0;
		receiver.answer = (_request, response) => response.writeHead(200).end('ok');
	});
	return { sandbox: () => sandbox!, receiver };
}

async function createOrder(sandbox: Sandbox, callbackUrl: string, level = 0): Promise<{ status: number; orderId: string; body: any }> {
	const response = await call(sandbox, 'POST', '/integration/orders/create', {
		body: { orderType: 'document', level, projectId: sandbox.fixtures.projects.writable, targetLanguageConfigs: [{ language: 'de' }], callbackUrl },
	});
	return { status: response.status, orderId: response.body?.[0]?.orderId, body: response.body };
}

async function advance(sandbox: Sandbox, minutes: number): Promise<void> {
	sandbox.clock.advance(minutes);
	await sandbox.callbacks.settled();
}

const deliveriesOf = (sandbox: Sandbox, orderId: string) => sandbox.callbacks.list().filter((delivery) => delivery.orderId === orderId);

describe('order-completion callback', () => {
	const { sandbox, receiver } = useWorld();

	it('POSTs Get Order plus orderId, status, orderType, targetLanguage, completedAt as JSON when the order completes, once', async () => {
		const { status, orderId } = await createOrder(sandbox(), `${receiver.url}/hooks/order?token=abc`);
		expect(status).toBe(201);
		await advance(sandbox(), 10); // started, AI still running
		expect(receiver.received).toEqual([]);
		await advance(sandbox(), 1); // ai_delivered: completed
		expect(receiver.received).toHaveLength(1);
		const [request] = receiver.received;
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/hooks/order?token=abc');
		expect(request.headers['content-type']).toBe('application/json');
		expect(Number(request.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(request.body)));

		const order = (await call(sandbox(), 'GET', `/integration/orders/${orderId}`)).body;
		expect(order.status).toBe('completed');
		const { orderId: bodyOrderId, orderType, completedAt, ...getOrderShape } = request.body;
		expect(getOrderShape).toEqual(order);
		expect({ bodyOrderId, orderType, status: request.body.status, targetLanguage: request.body.targetLanguage }).toEqual({
			bodyOrderId: orderId,
			orderType: 'document',
			status: 'completed',
			targetLanguage: 'de',
		});
		expect(completedAt).toBe(sandbox().clock.now().toISOString());

		// Delivery (status delivered) and the rest of the order's life send nothing more.
		await advance(sandbox(), 24 * 60 + 30);
		expect(receiver.received).toHaveLength(1);
		expect(deliveriesOf(sandbox(), orderId)).toEqual([
			expect.objectContaining({ kind: 'orderCompleted', status: 'delivered', repeatOf: null, completedAt, evalId: null, target: `${receiver.url}/hooks/order?token=abc` }),
		]);
	});

	it('a level-1 order calls back when the LSP approves it (completed), not at AI delivery; a rerun completes it again with a new completedAt', async () => {
		const { orderId } = await createOrder(sandbox(), `${receiver.url}/level1`, 1);
		await advance(sandbox(), 11);
		expect((await call(sandbox(), 'GET', `/integration/orders/${orderId}`)).body.status).toBe('ongoing');
		expect(receiver.received).toEqual([]);
		await advance(sandbox(), 5 + 120 + 30);
		expect(receiver.received.map((request) => request.body.status)).toEqual(['completed']);
		const first = receiver.received[0].body.completedAt;
		await advance(sandbox(), 15); // delivered
		expect((await call(sandbox(), 'POST', `/integration/orders/${orderId}/rerun`, { body: { freeReRun: true } })).status).toBe(200);
		await advance(sandbox(), 10 + 5 + 120 + 30);
		expect(receiver.received).toHaveLength(2);
		expect(receiver.received[1].body.orderId).toBe(orderId);
		expect(receiver.received[1].body.completedAt).not.toBe(first);
		expect(Date.parse(receiver.received[1].body.completedAt)).toBeGreaterThan(Date.parse(first));
	});

	it('an order without a callback URL, and the seeded history, call no one', async () => {
		const before = sandbox().callbacks.list().length;
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0 });
		await advance(sandbox(), 30);
		expect(sandbox().state.orders.get(order.id)!.status).toBe('delivered');
		expect(sandbox().callbacks.list()).toHaveLength(before);
		const fresh = await startSandbox({ quiet: true, seed: 9 });
		try {
			expect(fresh.callbacks.list()).toEqual([]);
		} finally {
			await fresh.close();
		}
	});
});

describe('retries (at least once)', () => {
	const { sandbox, receiver } = useWorld({ ...LOOPBACK, callbacks: { ...LOOPBACK.callbacks, timeoutMs: 400 } });

	it('tries again a simulated minute after a 500; the failure does not change the order', async () => {
		let calls = 0;
		receiver.answer = (_request, response) => response.writeHead(++calls === 1 ? 500 : 204).end();
		const { orderId } = await createOrder(sandbox(), `${receiver.url}/retry-500`);
		await advance(sandbox(), 11);
		const [waiting] = deliveriesOf(sandbox(), orderId);
		expect(waiting.status).toBe('waiting');
		expect(waiting.attempts).toEqual([expect.objectContaining({ number: 1, statusCode: 500, error: null })]);
		expect(Date.parse(waiting.nextAttemptAt!) - Date.parse(waiting.attempts[0].at)).toBe(60_000);
		expect(sandbox().state.orders.get(orderId)!.status).toBe('completed');

		await advance(sandbox(), 1);
		const [done] = deliveriesOf(sandbox(), orderId);
		expect(done.status).toBe('delivered');
		expect(done.attempts.map((attempt) => attempt.statusCode)).toEqual([500, 204]);
		expect(receiver.received).toHaveLength(2);
		expect(receiver.received[1].body).toEqual(receiver.received[0].body);
		await advance(sandbox(), 15);
		expect(sandbox().state.orders.get(orderId)!.status).toBe('delivered');
	});

	it('tries again after a receiver that does not answer within the timeout (it did get the body: a repeat for it)', async () => {
		let calls = 0;
		receiver.answer = (_request, response) => {
			if (++calls === 1) setTimeout(() => response.writeHead(200).end(), 1500);
			else response.writeHead(200).end();
		};
		const { orderId } = await createOrder(sandbox(), `${receiver.url}/slow`);
		await advance(sandbox(), 11);
		const [waiting] = deliveriesOf(sandbox(), orderId);
		expect(waiting.attempts).toEqual([expect.objectContaining({ statusCode: null, error: 'no answer within 400 ms' })]);
		expect(waiting.attempts[0].durationMs).toBeGreaterThanOrEqual(390);
		await advance(sandbox(), 1);
		expect(deliveriesOf(sandbox(), orderId)[0].status).toBe('delivered');
		expect(receiver.received.map((request) => request.body.orderId)).toEqual([orderId, orderId]);
	});

	it('backs off 1, 5 and 15 simulated minutes, then gives up after the fourth attempt', async () => {
		receiver.answer = (_request, response) => response.writeHead(503).end();
		const { orderId } = await createOrder(sandbox(), `${receiver.url}/down`);
		await advance(sandbox(), 11);
		await advance(sandbox(), 1);
		await advance(sandbox(), 4);
		expect(deliveriesOf(sandbox(), orderId)[0].attempts).toHaveLength(2); // the third is due at +5
		await advance(sandbox(), 1);
		await advance(sandbox(), 15);
		const [failed] = deliveriesOf(sandbox(), orderId);
		expect(failed.status).toBe('failed');
		expect(failed.nextAttemptAt).toBeNull();
		const minutes = failed.attempts.map((attempt) => (Date.parse(attempt.at) - Date.parse(failed.attempts[0].at)) / 60_000);
		expect(minutes).toEqual([0, 1, 6, 21]);
		expect(failed.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 503, 503, 503]);
		await advance(sandbox(), 24 * 60);
		expect(receiver.received).toHaveLength(4);
	});

	it.each([
		['none', [0]],
		['once', [0, 1]],
		['three', [0, 1, 6, 21]],
	] as const)('retry policy %s: attempts at %j simulated minutes, then given up (admin route)', async (retries, minutes) => {
		receiver.answer = (_request, response) => response.writeHead(503).end();
		const settings = await fetch(`${sandbox().baseUrl}/__sandbox/callbacks/settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ retries }) });
		expect(((await settings.json()) as any).retries).toBe(retries);
		try {
			const { orderId } = await createOrder(sandbox(), `${receiver.url}/policy-${retries}`);
			await advance(sandbox(), 11);
			for (let minute = 0; minute < 30; minute++) await advance(sandbox(), 1);
			const [failed] = deliveriesOf(sandbox(), orderId);
			expect(failed.status).toBe('failed');
			expect(failed.attempts.map((attempt) => (Date.parse(attempt.at) - Date.parse(failed.attempts[0].at)) / 60_000)).toEqual(minutes);
			expect(receiver.received.filter((request) => request.path === `/policy-${retries}`)).toHaveLength(minutes.length);
		} finally {
			sandbox().callbacks.settings.retries = 'three';
		}
	});

	it("the programmatic option: startSandbox({ callbacks: { retries: 'none' } }) gives up after the first attempt; an unknown policy is refused", async () => {
		await expect(startSandbox({ quiet: true, callbacks: { retries: 'twice' as never } })).rejects.toThrow('callbacks.retries must be one of none, once, three, got twice');
		const strict = await startSandbox({ quiet: true, callbacks: { allowLoopback: true, repeatProbability: 0, retries: 'none' } });
		try {
			receiver.answer = (_request, response) => response.writeHead(503).end();
			const { orderId } = await createOrder(strict, `${receiver.url}/programmatic-none`);
			await advance(strict, 11);
			await advance(strict, 30);
			const [failed] = strict.callbacks.list().filter((delivery) => delivery.orderId === orderId);
			expect([strict.callbacks.settings.retries, failed.status, failed.attempts.length]).toEqual(['none', 'failed', 1]);
		} finally {
			await strict.close();
		}
	});

	it('a policy changed while a delivery waits applies to its retries still to come', async () => {
		receiver.answer = (_request, response) => response.writeHead(500).end();
		const { orderId } = await createOrder(sandbox(), `${receiver.url}/changed`);
		await advance(sandbox(), 11);
		expect(deliveriesOf(sandbox(), orderId)[0].status).toBe('waiting');
		await fetch(`${sandbox().baseUrl}/__sandbox/callbacks/settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ retries: 'once' }) });
		try {
			await advance(sandbox(), 1);
			await advance(sandbox(), 30);
			const [failed] = deliveriesOf(sandbox(), orderId);
			expect([failed.status, failed.attempts.length]).toEqual(['failed', 2]);
		} finally {
			sandbox().callbacks.settings.retries = 'three';
		}
	});

	it('a connection refused is a failed attempt too, retried', async () => {
		const gone = new Receiver();
		await gone.start();
		const target = `${gone.url}/gone`;
		await gone.stop();
		const { orderId } = await createOrder(sandbox(), target);
		await advance(sandbox(), 11);
		const [waiting] = deliveriesOf(sandbox(), orderId);
		expect(waiting.status).toBe('waiting');
		expect(waiting.attempts[0]).toEqual(expect.objectContaining({ statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) }));
	});
});

describe('repeats', () => {
	it('with repeatProbability 1 every completion is delivered twice, the same body, the repeat marked', async () => {
		const receiver = new Receiver();
		await receiver.start();
		const sandbox = await startSandbox({ quiet: true, callbacks: { allowLoopback: true, repeatProbability: 1 } });
		try {
			const { orderId } = await createOrder(sandbox, `${receiver.url}/twice`);
			await advance(sandbox, 11);
			await advance(sandbox, 2);
			const deliveries = deliveriesOf(sandbox, orderId);
			expect(deliveries.map((delivery) => [delivery.status, delivery.repeatOf])).toEqual([
				['delivered', null],
				['delivered', deliveries[0].id],
			]);
			expect(receiver.received).toHaveLength(2);
			expect(receiver.received[1].body).toEqual(receiver.received[0].body);
		} finally {
			await sandbox.close();
			await receiver.stop();
		}
	});

	it('by default about one delivery in ten is repeated, the same ones for the same seed', async () => {
		const receiver = new Receiver();
		await receiver.start();
		const repeatedOrders = async (): Promise<number[]> => {
			const sandbox = await startSandbox({ quiet: true, seed: 3, callbacks: { allowLoopback: true } });
			try {
				expect(sandbox.callbacks.settings.repeatProbability).toBe(0.1);
				for (let n = 0; n < 40; n++) await createOrder(sandbox, `${receiver.url}/seeded`);
				await advance(sandbox, 11);
				await advance(sandbox, 2);
				const deliveries = sandbox.callbacks.list();
				const originals = deliveries.filter((delivery) => delivery.repeatOf === null);
				expect(originals).toHaveLength(40);
				return deliveries.filter((delivery) => delivery.repeatOf !== null).map((delivery) => originals.findIndex((original) => original.id === delivery.repeatOf));
			} finally {
				await sandbox.close();
			}
		};
		try {
			const first = await repeatedOrders();
			expect(first.length).toBeGreaterThanOrEqual(1);
			expect(first.length).toBeLessThanOrEqual(12);
			expect(await repeatedOrders()).toEqual(first);
		} finally {
			await receiver.stop();
		}
	});
});

describe('dropNext (a callback lost on purpose)', () => {
	it('loses the next completions: listed as dropped, nothing sent, no retry and no repeat; then it counts down to sending again', async () => {
		const receiver = new Receiver();
		await receiver.start();
		// Every completion would be repeated: a dropped one must not be.
		const sandbox = await startSandbox({ quiet: true, callbacks: { allowLoopback: true, repeatProbability: 1 } });
		try {
			const put = await fetch(`${sandbox.baseUrl}/__sandbox/callbacks/settings`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ dropNext: 2 }),
			});
			expect(await put.json()).toEqual(expect.objectContaining({ dropNext: 2 }));
			const orders = [];
			for (const path of ['lost-1', 'lost-2', 'kept']) orders.push((await createOrder(sandbox, `${receiver.url}/${path}`)).orderId);
			await advance(sandbox, 11);
			await advance(sandbox, 24 * 60);
			const [lost1, lost2, kept] = orders.map((orderId) => deliveriesOf(sandbox, orderId));
			for (const lost of [lost1, lost2]) expect(lost.map((delivery) => [delivery.status, delivery.attempts.length])).toEqual([['dropped', 0]]);
			expect(kept.map((delivery) => delivery.status)).toEqual(['delivered', 'delivered']);
			expect(receiver.received.map((request) => request.path)).toEqual(['/kept', '/kept']);
			expect(sandbox.callbacks.settings.dropNext).toBe(0);
			// The orders themselves went on: a drop loses the call, not the completion.
			expect(orders.map((orderId) => sandbox.state.orders.get(orderId)!.status)).toEqual(['delivered', 'delivered', 'delivered']);
		} finally {
			await sandbox.close();
			await receiver.stop();
		}
	});
});

describe('dropOrders (one run\'s callbacks lost on purpose)', () => {
	it('loses every completion of the orders named, whenever it comes, and sends the others', async () => {
		const receiver = new Receiver();
		await receiver.start();
		const sandbox = await startSandbox({ quiet: true, callbacks: { allowLoopback: true, repeatProbability: 0 } });
		try {
			const orders = [];
			for (const path of ['lost', 'kept']) orders.push((await createOrder(sandbox, `${receiver.url}/${path}`)).orderId);
			const put = await fetch(`${sandbox.baseUrl}/__sandbox/callbacks/settings`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ dropOrders: [orders[0]] }),
			});
			expect(await put.json()).toEqual(expect.objectContaining({ dropOrders: [orders[0]] }));
			await advance(sandbox, 11);
			await advance(sandbox, 24 * 60);
			const [lost, kept] = orders.map((orderId) => deliveriesOf(sandbox, orderId));
			expect(lost.map((delivery) => [delivery.status, delivery.attempts.length])).toEqual([['dropped', 0]]);
			expect(kept.map((delivery) => delivery.status)).toEqual(['delivered']);
			expect(receiver.received.map((request) => request.path)).toEqual(['/kept']);
			expect(orders.map((orderId) => sandbox.state.orders.get(orderId)!.status)).toEqual(['delivered', 'delivered']);
		} finally {
			await sandbox.close();
			await receiver.stop();
		}
	});
});

describe('callback URL rules', () => {
	describe('without allowLoopback (the real API)', () => {
		const { sandbox, receiver } = useWorld({ quiet: true });

		it('refuses loopback targets for orders and QC', async () => {
			for (const target of [`${receiver.url}/x`, 'http://localhost:5678/webhook/x']) {
				const response = await createOrder(sandbox(), target);
				expect(response.status).toBe(400);
				expect(response.body.message).toEqual([expect.stringMatching(/^callbackUrl must point to a public host/)]);
			}
			const qc = await call(sandbox(), 'POST', `/integration/orders/${sandbox().fixtures.orders.completedLevel0}/qc`, { body: { callbackUrl: `${receiver.url}/qc` } });
			expect(qc.status).toBe(400);
			expect(qc.body.message).toEqual(['callbackUrl must use https']);
			expect(sandbox().callbacks.settings.allowLoopback).toBe(false);
		});

		it('sends nothing to a reserved example domain (no receiver can live there): a failed attempt, retried', async () => {
			const { status, orderId } = await createOrder(sandbox(), 'https://hooks.example.com/order');
			expect(status).toBe(201);
			await advance(sandbox(), 11);
			expect(deliveriesOf(sandbox(), orderId)[0].attempts).toEqual([
				expect.objectContaining({ statusCode: null, error: 'not sent: hooks.example.com is a reserved example name (RFC 2606)' }),
			]);
		});
	});

	describe('with allowLoopback', () => {
		const { sandbox, receiver } = useWorld();

		it('takes loopback targets (127.0.0.1, localhost, [::1]) but still refuses private networks', async () => {
			const port = new URL(receiver.url).port;
			for (const target of [`${receiver.url}/a`, `http://localhost:${port}/webhook/a`, `http://[::1]:${port}/a`]) {
				expect({ target, status: (await createOrder(sandbox(), target)).status }).toEqual({ target, status: 201 });
			}
			for (const target of ['http://10.0.0.5/hook', 'http://192.168.1.2/hook', 'http://[fd00::1]/hook']) {
				const response = await createOrder(sandbox(), target);
				expect({ target, status: response.status, message: response.body.message }).toEqual({
					target,
					status: 400,
					message: [expect.stringMatching(/^callbackUrl must point to a public host/)],
				});
			}
		});

		it('reaches a loopback target by name (localhost resolved, and checked, when sending)', async () => {
			const port = new URL(receiver.url).port;
			const { orderId } = await createOrder(sandbox(), `http://localhost:${port}/by-name`);
			await advance(sandbox(), 11);
			expect(deliveriesOf(sandbox(), orderId)[0].attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([[200, null]]);
			expect(receiver.received.map((request) => request.path)).toContain('/by-name');
		});

		it('QC: https only for public hosts; a loopback target may use http; refused targets charge nothing', async () => {
			const orderId = sandbox().fixtures.orders.completedLevel0;
			const before = sandbox().state.wallet.usedCredits;
			const publicHttp = await call(sandbox(), 'POST', `/integration/orders/${orderId}/qc`, { body: { callbackUrl: 'http://hooks.example.com/qc' } });
			expect(publicHttp.status).toBe(400);
			expect(publicHttp.body.message).toEqual(['callbackUrl must use https']);
			const privateHttps = await call(sandbox(), 'POST', `/integration/orders/${orderId}/qc`, { body: { callbackUrl: 'https://10.0.0.5/qc' } });
			expect(privateHttps.status).toBe(400);
			expect(sandbox().state.wallet.usedCredits).toBe(before);
			const loopback = await call(sandbox(), 'POST', `/integration/orders/${orderId}/qc`, { body: { callbackUrl: `${receiver.url}/qc` } });
			expect(loopback.status).toBe(200);
		});

		it('checks the address again when sending: loopback switched off after the order was made sends nothing', async () => {
			const { orderId } = await createOrder(sandbox(), `${receiver.url}/later-off`);
			const settings = await fetch(`${sandbox().baseUrl}/__sandbox/callbacks/settings`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ allowLoopback: false }),
			});
			expect(settings.status).toBe(200);
			try {
				await advance(sandbox(), 11);
				expect(deliveriesOf(sandbox(), orderId)[0].attempts).toEqual([expect.objectContaining({ statusCode: null, error: 'refused: 127.0.0.1 is not a public address' })]);
				expect(receiver.received).toEqual([]);
			} finally {
				await fetch(`${sandbox().baseUrl}/__sandbox/callbacks/settings`, {
					method: 'PUT',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ allowLoopback: true }),
				});
			}
		});
	});
});

describe('QC evaluation callback', () => {
	const { sandbox, receiver } = useWorld();

	it('POSTs { orderId, evalId, status, textSummary, scores, segmentEvals } when the evaluation finishes, matching latestEvaluation', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
		const started = await call(sandbox(), 'POST', `/integration/orders/${order.id}/qc`, { body: { tone: false, callbackUrl: `${receiver.url}/qc?token=t` } });
		expect(started.status).toBe(200);
		await advance(sandbox(), 4);
		expect(receiver.received).toEqual([]);
		await advance(sandbox(), 1);
		expect(receiver.received).toHaveLength(1);
		const [request] = receiver.received;
		expect(request.path).toBe('/qc?token=t');
		expect(request.headers['content-type']).toBe('application/json');
		const latest = (await call(sandbox(), 'GET', `/integration/orders/${order.id}`)).body.latestEvaluation;
		expect(request.body).toEqual({
			orderId: order.id,
			evalId: started.body.evalId,
			status: 'completed',
			textSummary: latest.textSummary,
			scores: latest.scores,
			segmentEvals: latest.segmentEvals,
		});
		expect(latest.id).toBe(started.body.evalId);
		expect(request.body.scores.map((score: any) => score.name)).toEqual(['Accuracy', 'Fluency', 'Cultural Fit']);
		expect(deliveriesOf(sandbox(), order.id)).toEqual([expect.objectContaining({ kind: 'qcCompleted', evalId: started.body.evalId, completedAt: null, status: 'delivered' })]);
	});

	it('an evaluation replaced by a newer one before it finished calls back only for the newer one', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
		const first = await call(sandbox(), 'POST', `/integration/orders/${order.id}/qc`, { body: { callbackUrl: `${receiver.url}/qc-first` } });
		await advance(sandbox(), 2);
		const second = await call(sandbox(), 'POST', `/integration/orders/${order.id}/qc`, { body: { callbackUrl: `${receiver.url}/qc-second` } });
		await advance(sandbox(), 10);
		expect(receiver.received.map((request) => [request.path, request.body.evalId])).toEqual([['/qc-second', second.body.evalId]]);
		expect(second.body.evalId).not.toBe(first.body.evalId);
	});
});

describe('GET /__sandbox/callbacks', () => {
	const { sandbox, receiver } = useWorld();

	it('lists every delivery with its target, attempts (status codes, simulated and wall times); ?orderId= narrows', async () => {
		let calls = 0;
		receiver.answer = (_request, response) => response.writeHead(++calls === 1 ? 502 : 200).end();
		const one = await createOrder(sandbox(), `${receiver.url}/listed-1`);
		const two = await createOrder(sandbox(), `${receiver.url}/listed-2`);
		await advance(sandbox(), 11);
		await advance(sandbox(), 1);
		const all = (await (await fetch(`${sandbox().baseUrl}/__sandbox/callbacks`)).json()) as any;
		expect(all.count).toBe(2);
		expect(all.settings).toEqual({ allowLoopback: true, repeatProbability: 0, timeoutMs: 10_000, dropNext: 0, dropOrders: [], retries: 'three' });
		expect(all.deliveries.map((delivery: any) => delivery.orderId).sort()).toEqual([one.orderId, two.orderId].sort());
		for (const delivery of all.deliveries) {
			expect(delivery).toEqual(
				expect.objectContaining({ id: expect.any(Number), kind: 'orderCompleted', target: expect.stringContaining(`${receiver.url}/listed-`), status: 'delivered' }),
			);
			for (const attempt of delivery.attempts) {
				expect(attempt).toEqual({
					number: expect.any(Number),
					at: expect.stringMatching(/Z$/),
					sentAt: expect.stringMatching(/Z$/),
					durationMs: expect.any(Number),
					statusCode: expect.any(Number),
					error: null,
				});
			}
		}
		expect(all.deliveries.flatMap((delivery: any) => delivery.attempts.map((attempt: any) => attempt.statusCode)).sort()).toEqual([200, 200, 502]);
		const narrowed = (await (await fetch(`${sandbox().baseUrl}/__sandbox/callbacks?orderId=${two.orderId}`)).json()) as any;
		expect(narrowed.deliveries.map((delivery: any) => delivery.orderId)).toEqual([two.orderId]);
		expect(narrowed.deliveries[0].body.orderId).toBe(two.orderId);
	});

	it('refuses settings out of range', async () => {
		const put = (body: unknown) => fetch(`${sandbox().baseUrl}/__sandbox/callbacks/settings`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
		expect((await put({ repeatProbability: 2 })).status).toBe(400);
		expect((await put({ timeoutMs: 0 })).status).toBe(400);
		expect((await put({ retries: 3 })).status).toBe(400);
		expect((await put({ retries: 'twice' })).status).toBe(400);
		expect((await put({ dropNext: -1 })).status).toBe(400);
		expect((await put({ dropNext: 1.5 })).status).toBe(400);
		expect(sandbox().callbacks.settings).toEqual({ allowLoopback: true, repeatProbability: 0, timeoutMs: 10_000, dropNext: 0, dropOrders: [], retries: 'three' });
	});
});

describe('npm run sandbox flags', () => {
	const ROOT = join(__dirname, '..', '..');
	const runCli = (args: string[]) => spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['sandbox/cli.cts', '--port', '0', ...args], { cwd: ROOT });

	it('--allow-loopback-callbacks, --callback-repeat and --callback-retries set the callback settings; an out-of-range repeat or unknown policy exits 2', async () => {
		const child = runCli(['--allow-loopback-callbacks', '--callback-repeat', '0.5', '--callback-retries', 'once']);
		try {
			let output = '';
			const baseUrl = await new Promise<string>((resolve, reject) => {
				child.stdout.on('data', (chunk: Buffer) => {
					output += chunk.toString('utf8');
					const ready = /^SANDBOX_READY (.*)$/m.exec(output);
					if (ready) resolve(JSON.parse(ready[1]).baseUrl);
				});
				child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
			});
			expect(output).toContain('callbacks: loopback targets allowed');
			const listing = (await (await fetch(`${baseUrl}/__sandbox/callbacks`)).json()) as any;
			expect(output).toContain('callbacks: failed deliveries retried once ([1] simulated minutes)');
			expect(listing).toEqual({ count: 0, settings: { allowLoopback: true, repeatProbability: 0.5, timeoutMs: 10_000, dropNext: 0, dropOrders: [], retries: 'once' }, deliveries: [] });
		} finally {
			child.kill('SIGTERM');
			await once(child, 'exit');
		}
		const bad = runCli(['--callback-repeat', '2']);
		let errors = '';
		bad.stderr.on('data', (chunk: Buffer) => {
			errors += chunk.toString('utf8');
		});
		const [code] = await once(bad, 'exit');
		expect(code).toBe(2);
		expect(errors).toContain('--callback-repeat must be a number from 0 to 1, got "2"');
		const unknown = runCli(['--callback-retries', 'twice']);
		let unknownErrors = '';
		unknown.stderr.on('data', (chunk: Buffer) => {
			unknownErrors += chunk.toString('utf8');
		});
		expect((await once(unknown, 'exit'))[0]).toBe(2);
		expect(unknownErrors).toContain('--callback-retries must be one of none, once, three, got "twice"');
	});
});
