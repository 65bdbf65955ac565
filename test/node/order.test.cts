import type { INodeParameters } from 'n8n-workflow';
import ExcelJS from 'exceljs';
import { readBinary } from '../harness/engine.cts';
import { byId, failure, pairedIndexes, run, startStub, useSandbox, sentInThisProcess } from './setup.cts';

const sandbox = useSandbox();
const MISSING = 'aaaaaaaaaaaaaaaaaaaaaaaa';

describe('Order > Get', () => {
	const get = (orderId: unknown) => ({ resource: 'order', operation: 'get', orderId: byId(orderId as string) });

	it('returns the order with documents, finance and delivery events', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.delivered;

		const result = await run(sandbox(), { ...get(orderId), simplify: false });

		expect(result.error).toBeUndefined();
		expect(result.json).toHaveLength(1);
		expect(result.json[0]).toMatchObject({ id: orderId, status: 'delivered', finance: { paymentAmount: expect.any(Number) } });
		expect(Array.isArray(result.json[0].deliveryEvents)).toBe(true);
		expect(pairedIndexes(result)).toEqual([0]);
	});

	/** An order with documents, delivery events and a finished QC evaluation with scores. */
	const richOrder = () => {
		const order = [...sandbox().state.orders.values()].find(
			(candidate) =>
				candidate.orderDocs.length > 1 &&
				candidate.deliveryEvents.length > 1 &&
				candidate.latestEvaluation?.isLoading === false &&
				(candidate.latestEvaluation.scores?.length ?? 0) > 0,
		);
		if (!order) throw new Error('the seed has no order with documents, delivery events and QC scores');
		return order;
	};

	it('Simplify (on by default): own fields, documents as type/name/URL, delivery events counted, QC scores', async () => {
		const order = richOrder();

		const simplified = (await run(sandbox(), get(order.id))).json[0];
		const raw = (await run(sandbox(), { ...get(order.id), simplify: false })).json[0];

		const lastEvent = order.deliveryEvents[order.deliveryEvents.length - 1];
		expect(simplified).toEqual({
			id: order.id,
			name: order.name,
			type: order.type,
			status: raw.status,
			level: order.level,
			sourceLanguage: order.sourceLanguage,
			targetLanguage: order.targetLanguage,
			createdAt: order.createdAt,
			projectId: order.projectId,
			folderId: order.folderId,
			...(raw.vttUrl === undefined ? {} : { vttUrl: raw.vttUrl }),
			documents: (raw.orderDocs as Array<Record<string, unknown>>).map((doc) => ({ type: doc.type, name: doc.name, url: doc.url })),
			deliveryEventCount: order.deliveryEvents.length,
			lastDeliveryEvent: { type: lastEvent.type, occurredAt: lastEvent.occurredAt },
			qcEvaluation: {
				id: order.latestEvaluation?.id,
				isLoading: false,
				textSummary: order.latestEvaluation?.textSummary,
				scores: order.latestEvaluation?.scores?.map((score) => ({ name: score.name, value: score.value })),
			},
		});
		expect(simplified).not.toHaveProperty('finance');
		expect(JSON.stringify(simplified).length).toBeLessThan(JSON.stringify(raw).length / 2);
	});

	it('Simplify off keeps the raw answer', async () => {
		const order = richOrder();

		const result = await run(sandbox(), { ...get(order.id), simplify: false });

		expect(result.json[0]).toHaveProperty('finance');
		expect(result.json[0].deliveryEvents).toHaveLength(order.deliveryEvents.length);
		expect(result.json[0]).not.toHaveProperty('deliveryEventCount');
	});

	it('runs once per input item, each output paired with its item', async () => {
		const { completed, ongoing } = sandbox().fixtures.orders.byStatus;

		const result = await run(sandbox(), get('={{ $json.orderId }}'), {
			items: [{ json: { orderId: completed } }, { json: { orderId: ongoing } }],
		});

		expect(result.json.map((order) => order.id)).toEqual([completed, ongoing]);
		expect(pairedIndexes(result)).toEqual([0, 1]);
	});

	it('404: ORDER_NOT_FOUND in the API\'s words', async () => {
		const error = failure(await run(sandbox(), get(MISSING)));

		expect(error.message).toBe(`The Ollang API answered 404 ORDER_NOT_FOUND: Order ${MISSING} not found`);
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('Check the order ID');
	});

	it('403 with the member key on an order it cannot see: ACCESS_DENIED with a hint', async () => {
		const error = failure(await run(sandbox(), get(sandbox().fixtures.orders.hiddenFromMember), { key: 'member' }));

		expect(error.message).toMatch(/^The Ollang API answered 403 ACCESS_DENIED: /);
		expect(error.description).toContain('no access to this order');
	});

	it('401 with a wrong key', async () => {
		const error = failure(await run(sandbox(), get(MISSING), { key: 'not-a-valid-key-123' }));

		expect(error.httpCode).toBe('401');
		expect(error.message).toContain('UNAUTHORIZED');
	});

	it('continue on fail: the failing item gets the error, the others their order', async () => {
		const { completed } = sandbox().fixtures.orders.byStatus;

		const result = await run(sandbox(), get('={{ $json.orderId }}'), {
			items: [{ json: { orderId: MISSING } }, { json: { orderId: completed } }],
			continueOnFail: true,
		});

		expect(result.error).toBeUndefined();
		expect(result.json[0].error).toContain('404 ORDER_NOT_FOUND');
		expect(result.json[0].details).toEqual({ httpCode: '404', description: expect.stringContaining('Check the order ID') });
		expect(result.json[1]).toMatchObject({ id: completed });
		expect(pairedIndexes(result)).toEqual([0, 1]);
	});
});

describe('Order > Get Many', () => {
	const getMany = (extra: Record<string, unknown>) => ({ resource: 'order', operation: 'getMany', ...extra });
	const visibleToOwner = () => sandbox().state.orders.size;

	it('Return All fetches every page and keeps the API order under concurrent page requests', async () => {
		const all = await run(sandbox(), getMany({ returnAll: true, options: { orderBy: 'createdAt', orderDirection: 'desc' } }));
		const pages = sandbox().requests.count({ path: '/integration/orders' });
		sandbox().requests.reset();
		const small = await run(
			sandbox(),
			getMany({ returnAll: true, options: { orderBy: 'createdAt', orderDirection: 'desc', pageSize: 7, pageConcurrency: 3 } }),
		);

		expect(all.json).toHaveLength(visibleToOwner());
		expect(pages).toBe(Math.ceil(visibleToOwner() / 50));
		expect(sandbox().requests.count({ path: '/integration/orders' })).toBe(Math.ceil(visibleToOwner() / 7));
		expect(small.json.map((order) => order.id)).toEqual(all.json.map((order) => order.id));
		expect(new Set(pairedIndexes(small))).toEqual(new Set([0]));
	});

	it('Limit fetches only the pages it needs', async () => {
		const result = await run(sandbox(), getMany({ returnAll: false, limit: 12, options: { pageSize: 5 } }));

		expect(result.json).toHaveLength(12);
		expect(sandbox().requests.count({ path: '/integration/orders' })).toBe(3);
	});

	it('filters by several statuses and a type', async () => {
		const result = await run(
			sandbox(),
			getMany({ returnAll: true, filters: { statuses: ['completed', 'delivered'], type: 'subtitle' } }),
		);
		const expected = [...sandbox().state.orders.values()].filter(
			(order) => ['completed', 'delivered'].includes(order.status) && order.type === 'subtitle',
		);

		expect(expected.length).toBeGreaterThan(0);
		expect(result.json.map((order) => order.id).sort()).toEqual(expected.map((order) => order.id).sort());
	});

	it('filters by a project picked from the list, by ID, or given as plain text', async () => {
		const projectId = [...sandbox().state.orders.values()][0].projectId;
		const expected = [...sandbox().state.orders.values()].filter((order) => order.projectId === projectId).map((order) => order.id).sort();
		for (const value of [{ __rl: true, mode: 'list', value: projectId }, { __rl: true, mode: 'id', value: ` ${projectId} ` }, projectId]) {
			const result = await run(sandbox(), getMany({ returnAll: true, filters: { projectId: value } }));
			expect(result.json.map((order) => order.id).sort()).toEqual(expected);
		}
		const unfiltered = await run(sandbox(), getMany({ returnAll: true, filters: { projectId: { __rl: true, mode: 'list', value: '' } } }));
		expect(unfiltered.json.length).toBeGreaterThan(expected.length);
	});

	it('filters by creation time range', async () => {
		const times = [...sandbox().state.orders.values()].map((order) => order.createdAt).sort();
		const from = times[10];
		const to = times[20];

		const result = await run(sandbox(), getMany({ returnAll: true, filters: { createdFrom: from, createdTo: to } }));

		expect(result.json.length).toBe(times.filter((time) => time >= from && time <= to).length);
		for (const order of result.json) {
			expect(String(order.createdAt) >= from && String(order.createdAt) <= to).toBe(true);
		}
	});

	it.each([
		[{ filters: { createdFrom: '2026-02-01', createdTo: '2026-01-01' } }, 'Invalid Created After (item 0): must not be after Created Before'],
		[{ filters: { createdFrom: '31/01/2026' } }, 'Invalid Created After (item 0): "31/01/2026" is not a valid ISO 8601 date'],
		[{ limit: 0 }, 'Invalid Limit (item 0): must be a whole number at least 1'],
		[{ options: { pageSize: 51 } }, 'Invalid Page Size (item 0): must be a whole number from 1 to 50'],
	])('refuses bad input before any request: %j', async (extra, message) => {
		const error = failure(await run(sandbox(), getMany({ returnAll: false, limit: 5, ...extra })));

		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toContain(message);
		expect(sandbox().requests.count()).toBe(0);
	});
});

describe('Order > Create', () => {
	const create = (extra: INodeParameters = {}) => ({
		resource: 'order',
		operation: 'create',
		projectId: { __rl: true, mode: 'list', value: sandbox().fixtures.projects.writable },
		orderType: 'document',
		level: 1,
		targetLanguages: { language: [{ code: 'de', isRush: true }, { code: 'fr' }] },
		...extra,
	});

	it('creates one order per target language and outputs each', async () => {
		const memoryId = sandbox().fixtures.memories[0];

		const result = await run(sandbox(), create({ additionalFields: { selectedMemories: [memoryId], autoQc: true } }));

		expect(result.json).toHaveLength(2);
		expect(result.json.map((row) => row.orderType)).toEqual(['document', 'document']);
		const orders = result.json.map((row) => sandbox().state.orders.get(String(row.orderId)));
		expect(orders.map((order) => order?.targetLanguage)).toEqual(['de', 'fr']);
		expect(orders.map((order) => order?.level)).toEqual([1, 1]);
		expect(orders[0]?.options).toMatchObject({ isRush: true, autoQc: true, selectedMemories: [memoryId] });
		expect(pairedIndexes(result)).toEqual([0, 0]);
		expect(sandbox().requests.count({ method: 'POST' })).toBe(1);
	});

	it.each([
		[{ targetLanguages: { language: [] } }, 'Invalid Target Languages (item 0): add at least one target language'],
		[{ targetLanguages: { language: [{ code: 'de' }, { code: 'DE' }] } }, 'Invalid Target Languages (item 0): "DE" is listed twice'],
		[{ targetLanguages: { language: [{ code: ' ' }] } }, 'Invalid Target Languages > Language #1 (item 0): must not be empty'],
		// An empty required field given by expression: the editor cannot catch it, the node must.
		[{ projectId: '={{ $json.missing }}' }, 'Invalid Project (item 0): the ID must not be empty'],
		[{ additionalFields: { callbackUrl: 'not a url' } }, 'Invalid Callback URL (item 0): "not a url" is not a valid URL'],
		[
			{ additionalFields: { selectedMemories: Array.from({ length: 21 }, (_, index) => `m${index}`) } },
			'Invalid Memory Names or IDs (item 0): at most 20 memories per order, got 21',
		],
	])('refuses bad input before any request: %j', async (extra, message) => {
		const error = failure(await run(sandbox(), create(extra)));

		expect(error.message).toBe(message);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('400 from the API: every validation message', async () => {
		const error = failure(await run(sandbox(), create({ targetLanguages: { language: [{ code: 'xx' }] } })));

		expect(error.httpCode).toBe('400');
		expect(error.message).toContain('must be a language code of the catalogue');
		expect(error.description).toContain('did not act on this request');
	});

	it('403 with the member key in a folder it may only read', async () => {
		const error = failure(
			await run(sandbox(), create({ projectId: sandbox().fixtures.projects.readOnlyForMember }), { key: 'member' }),
		);

		expect(error.message).toMatch(/^The Ollang API answered 403 ACCESS_DENIED/);
	});
});

describe('Order > Request Human Review', () => {
	const review = (orderId: string) => ({ resource: 'order', operation: 'requestHumanReview', orderId: byId(orderId) });

	it('turns the 204 into a useful item and the order gets human review', async () => {
		const orderId = sandbox().fixtures.orders.completedLevel0;

		const result = await run(sandbox(), review(orderId));

		expect(result.json).toEqual([{ success: true, orderId, humanReviewRequested: true }]);
		expect(sandbox().state.orders.get(orderId)?.level).toBe(1);
	});

	it('ORDER_NOT_ELIGIBLE names the eligible statuses', async () => {
		const error = failure(await run(sandbox(), review(sandbox().fixtures.orders.byStatus.pending)));

		expect(error.message).toContain('ORDER_NOT_ELIGIBLE');
		expect(error.description).toContain('completed or delivered');
	});

	it('404 for an unknown order', async () => {
		expect(failure(await run(sandbox(), review(MISSING))).message).toContain('404 ORDER_NOT_FOUND');
	});

	it('403 with the member key on an order it may only read', async () => {
		const error = failure(await run(sandbox(), review(sandbox().fixtures.orders.readOnlyForMember), { key: 'member' }));

		expect(error.message).toContain('403 ACCESS_DENIED');
	});
});

describe('Order > Cancel Human Review', () => {
	const cancel = (orderId: string) => ({ resource: 'order', operation: 'cancelHumanReview', orderId: byId(orderId) });

	it("cancels an ongoing level 1 review, its answer lost: n8n's Retry finds the order level 0 and reads as already applied; a cancel in a new execution is the API's refusal", async () => {
		const orderId = sandbox().fixtures.orders.level1Ongoing;
		sandbox().faults.add({ method: 'POST', kind: 'drop', when: 'after', times: 1 });

		const lost = await run(sandbox(), cancel(orderId), { staticData: {} });
		const second = await run(sandbox(), cancel(orderId), { retryOf: lost, staticData: {} });
		const again = await run(sandbox(), cancel(orderId));

		expect(failure(lost).description).toContain('may have been applied');
		expect(sandbox().state.orders.get(orderId)).toMatchObject({ level: 0, status: 'completed' });
		expect(second.json).toEqual([{ success: true, orderId, alreadyApplied: true, ...sentInThisProcess() }]);
		expect(failure(again).httpCode).toBe('400');
		expect(sandbox().state.wallet.ledger.filter((entry) => entry.orderId === orderId && entry.kind === 'humanReviewRefund')).toHaveLength(1);
	});

	it('a level 1 order past its review is refused in the API\'s words, with the hint', async () => {
		const [order] = sandbox().simulate.createOrders(1, { status: 'completed', level: 1, progress: false });

		const error = failure(await run(sandbox(), cancel(order.id)));

		expect(error.httpCode).toBe('400');
		expect(error.message).toContain('human review can no longer be cancelled');
		expect(error.description).toContain('Only a level 1 (human review) order that is still ongoing');
	});

	it('404 (shape B) for an unknown order', async () => {
		const error = failure(await run(sandbox(), cancel(MISSING)));

		expect(error.message).toBe('The Ollang API answered 404 Not Found: Order not found');
	});
});

describe('Order > Export XLSX', () => {
	it('outputs the spreadsheet as binary, named from Content-Disposition', async () => {
		const order = sandbox().state.orders.get(sandbox().fixtures.orders.subtitleCompleted);
		if (!order) throw new Error('fixture missing');

		const result = await run(sandbox(), {
			resource: 'order',
			operation: 'exportXlsx',
			orderId: byId(order.id),
			binaryPropertyName: 'sheet',
		});

		const fileName = `${order.name}_${order.targetLanguage}.xlsx`;
		expect(result.json[0]).toMatchObject({ orderId: order.id, fileName });
		expect(result.items[0].binary?.sheet).toMatchObject({
			fileName,
			mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
		});
		const bytes = await readBinary(result.items[0], 'sheet');
		expect(result.json[0].fileSize).toBe(bytes.length);
		const workbook = new ExcelJS.Workbook();
		await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
		const header = workbook.worksheets[0].getRow(1).values as unknown[];
		expect(header.slice(1)).toEqual(['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES', order.targetLanguage]);
		expect(workbook.worksheets[0].rowCount).toBe(order.segmentCount + 1);
	});

	describe('streamed into the binary store', () => {
		const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
		let workbookBytes: Buffer;
		const rows = 30_000;
		beforeAll(async () => {
			const workbook = new ExcelJS.Workbook();
			const sheet = workbook.addWorksheet('Segments');
			sheet.addRow(['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES', 'de']);
			for (let index = 1; index <= rows; index++) sheet.addRow([index, `00:00:${index}`, 'Speaker', `Line ${index}`, `Zeile ${index}`]);
			workbookBytes = Buffer.from(await workbook.xlsx.writeBuffer());
		});

		/** Sends the workbook in chunks without a Content-Length; the first `cutAttempts` answers stop half way. */
		const serveWorkbook = (cutAttempts = 0) => {
			let attempts = 0;
			return startStub((_req, res) => {
				attempts++;
				res.writeHead(200, { 'content-type': XLSX, 'content-disposition': 'attachment; filename="Big order_de.xlsx"' });
				const end = attempts <= cutAttempts ? Math.floor(workbookBytes.length / 2) : workbookBytes.length;
				for (let start = 0; start < end; start += 64 * 1024) res.write(workbookBytes.subarray(start, Math.min(end, start + 64 * 1024)));
				if (attempts <= cutAttempts) setTimeout(() => res.socket?.destroy(), 20);
				else res.end();
			});
		};

		it('a large workbook (about 1 MB, sent in chunks without a length) arrives byte for byte, with its name, type and size', async () => {
			const stub = await serveWorkbook();
			try {
				const result = await run(sandbox(), { resource: 'order', operation: 'exportXlsx', orderId: byId('big-order') }, { baseUrl: stub.baseUrl });

				const bytes = await readBinary(result.items[0]);
				expect(bytes.equals(workbookBytes)).toBe(true);
				expect(result.json[0]).toEqual({ orderId: 'big-order', fileName: 'Big order_de.xlsx', mimeType: XLSX, fileSize: workbookBytes.length });
				const workbook = new ExcelJS.Workbook();
				await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
				expect(workbook.worksheets[0].rowCount).toBe(rows + 1);
				expect(workbook.worksheets[0].getRow(rows + 1).getCell(5).value).toBe(`Zeile ${rows}`);
			} finally {
				await stub.close();
			}
		});

		it('a connection dropped while the file streams is retried (a read), and the stored file is the whole one', async () => {
			const stub = await serveWorkbook(1);
			try {
				const result = await run(sandbox(), { resource: 'order', operation: 'exportXlsx', orderId: byId('big-order') }, { baseUrl: stub.baseUrl });

				expect(stub.requests).toHaveLength(2);
				expect((await readBinary(result.items[0])).equals(workbookBytes)).toBe(true);
				expect(result.json[0].fileSize).toBe(workbookBytes.length);
			} finally {
				await stub.close();
			}
		});

		it('a connection that keeps dropping fails after the retries, saying it was dropped', async () => {
			const stub = await serveWorkbook(Infinity);
			try {
				const error = failure(await run(sandbox(), { resource: 'order', operation: 'exportXlsx', orderId: byId('big-order') }, { baseUrl: stub.baseUrl }));

				expect(error.message).toMatch(/^Could not complete GET \/integration\/orders\/big-order\/export-xlsx: the connection to .* was dropped/);
				expect(stub.requests).toHaveLength(4);
			} finally {
				await stub.close();
			}
		});
	});

	it('500 without segment data: the API\'s message and a hint', async () => {
		const orderId = sandbox().fixtures.orders.noSegmentData;

		const error = failure(await run(sandbox(), { resource: 'order', operation: 'exportXlsx', orderId: byId(orderId) }));

		expect(error.message).toContain(`No segment data found for order ${orderId}`);
		expect(error.description).toContain('no segment data');
		expect(sandbox().requests.count()).toBe(1);
	});
});

describe('Order > Request Subtitle Embedding', () => {
	const embed = (orderId: string) => ({ resource: 'order', operation: 'requestSubtitleEmbedding', orderId: byId(orderId) });

	it('requests embedding for a completed subtitle order of a video', async () => {
		const orderId = sandbox().fixtures.orders.subtitleCompleted;

		const result = await run(sandbox(), embed(orderId));

		expect(result.json).toEqual([{ success: true, orderId, message: expect.any(String) }]);
		expect(sandbox().state.orders.get(orderId)?.subtitleEmbedding).not.toBeNull();
	});

	it('400 for an order that is not a subtitle order, with a hint', async () => {
		const error = failure(await run(sandbox(), embed(sandbox().fixtures.orders.byType.document)));

		expect(error.httpCode).toBe('400');
		expect(error.description).toContain('completed video order that has subtitles');
	});
});

describe('Order > Get Review Status', () => {
	const info = (orderId: string) => ({ resource: 'order', operation: 'getReviewInfo', orderId: byId(orderId) });

	it('reads tagName, reviewType and tagColor from the spec\'s path', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.qualityCheck;

		const result = await run(sandbox(), info(orderId));

		expect(result.json[0]).toMatchObject({ orderId, inReview: true, tagName: expect.any(String), reviewType: expect.any(String), tagColor: expect.any(String) });
		expect(sandbox().requests.log[0].path).toBe(`/v1/api/client/orders/${orderId}/review/info`);
	});

	it('404 for an unknown order', async () => {
		expect(failure(await run(sandbox(), info(MISSING))).httpCode).toBe('404');
	});
});

describe('Order > Cancel', () => {
	const cancel = (orderId: string) => ({ resource: 'order', operation: 'cancel', orderId: byId(orderId) });

	it("cancels a pending order: the 204 becomes a useful item; a second cancel in a new execution is the API's 409", async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', progress: false });

		const result = await run(sandbox(), cancel(order.id));
		const second = await run(sandbox(), cancel(order.id));

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([{ success: true, orderId: order.id, cancelled: true }]);
		expect(sandbox().state.orders.get(order.id)?.status).toBe('cancelled');
		expect(failure(second).httpCode).toBe('409');
	});

	it("a cancel whose answer was lost: n8n's Retry (409, then a read of the order) reads as already applied", async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', progress: false });
		sandbox().faults.add({ method: 'POST', kind: 'drop', when: 'after', times: 1 });

		const lost = await run(sandbox(), cancel(order.id), { staticData: {} });
		sandbox().requests.reset();
		const retried = await run(sandbox(), cancel(order.id), { retryOf: lost, staticData: {} });

		expect(failure(lost).description).toContain('may have been applied');
		expect(retried.json).toEqual([{ success: true, orderId: order.id, cancelled: true, alreadyApplied: true, ...sentInThisProcess() }]);
		expect(sandbox().requests.log.map((record) => `${record.method} ${record.status}`)).toEqual(['POST 409', 'GET 200']);
	});

	it('ORDER_NOT_ELIGIBLE for a completed order names what can be cancelled; the order is unchanged', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;

		const error = failure(await run(sandbox(), cancel(orderId)));

		expect(error.httpCode).toBe('400');
		expect(error.message).toContain('ORDER_NOT_ELIGIBLE');
		expect(error.description).toContain('Only pending orders, or ongoing orders whose AI processing has not finished');
		expect(sandbox().state.orders.get(orderId)?.status).toBe('completed');
	});

	it('is sent once: a 503 after the service acted is reported as possibly applied, not repeated', async () => {
		const [order] = sandbox().simulate.createOrders(1, { progress: false });
		sandbox().faults.add({ path: `/integration/orders/cancel/${order.id}`, kind: 'status', status: 503, when: 'after' });

		const error = failure(await run(sandbox(), cancel(order.id)));

		expect(sandbox().requests.count({ method: 'POST', path: `/integration/orders/cancel/${order.id}` })).toBe(1);
		expect(error.description).toContain('may have been applied; check before retrying');
		expect(sandbox().state.orders.get(order.id)?.status).toBe('cancelled');
	});

	it('404 for an unknown order and 403 with a read-only key', async () => {
		expect(failure(await run(sandbox(), cancel(MISSING))).message).toContain('404 ORDER_NOT_FOUND');
		const [readOnly] = sandbox().simulate.createOrders(1, { projectId: sandbox().fixtures.projects.readOnlyForMember, progress: false });
		expect(failure(await run(sandbox(), cancel(readOnly.id), { key: 'member' })).message).toContain('403 ACCESS_DENIED');
	});
});

describe('Order > Rerun', () => {
	const rerun = (orderId: string, options: INodeParameters = {}) => ({ resource: 'order', operation: 'rerun', orderId: byId(orderId), options });

	it('reruns a completed order: the answer plus the order ID; a new ai_delivered event follows', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed' });

		const result = await run(sandbox(), rerun(order.id));

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([{ orderId: order.id, success: true, message: 'Order rerun initiated successfully' }]);
		expect(sandbox().state.orders.get(order.id)?.status).toBe('ongoing');
		expect(sandbox().state.wallet.ledger.filter((entry) => entry.orderId === order.id && entry.kind === 'rerun')).toHaveLength(1);
		sandbox().clock.advance(10);
		expect(order.deliveryEvents.filter((event) => event.type === 'ai_delivered')).toHaveLength(2);
	});

	it('sends Free Rerun and Rerun Full Chain as freeReRun and triggerFullChain', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'delivered' });

		const result = await run(sandbox(), rerun(order.id, { freeReRun: true, triggerFullChain: true }));

		expect(result.json).toEqual([
			{ orderId: order.id, success: true, message: 'Order rerun initiated successfully', triggerFullChain: true, triggeredOrderIds: [order.id] },
		]);
		expect(order.reruns).toEqual([expect.objectContaining({ freeReRun: true, triggerFullChain: true })]);
		expect(sandbox().state.wallet.ledger.filter((entry) => entry.orderId === order.id && entry.kind === 'rerun')).toHaveLength(0);
	});

	it('a flag that is not a boolean is refused before anything is sent', async () => {
		const error = failure(await run(sandbox(), rerun(sandbox().fixtures.orders.completedLevel0, { freeReRun: 'often' })));

		expect(error.message).toBe('Invalid Free Rerun (item 0): must be true or false, got a string');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('ORDER_NOT_ELIGIBLE for a pending order says which orders can be rerun', async () => {
		const [pending] = sandbox().simulate.createOrders(1, { progress: false });

		const error = failure(await run(sandbox(), rerun(pending.id)));

		expect(error.message).toContain('ORDER_NOT_ELIGIBLE');
		expect(error.description).toContain('Only completed or delivered orders can be rerun');
	});
});

describe('Order > Run QC Evaluation', () => {
	const qc = (orderId: string, extra: INodeParameters = {}) => ({ resource: 'order', operation: 'runQcEvaluation', orderId: byId(orderId), ...extra });
	const qcCharges = (orderId: string) => sandbox().state.wallet.ledger.filter((entry) => entry.orderId === orderId && entry.kind === 'qcEvaluation');

	it('starts the evaluation: the answer with evalId and creditsUsed; the result lands in latestEvaluation later', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed', progress: false });

		const result = await run(sandbox(), qc(order.id));

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([
			{ orderId: order.id, success: true, message: expect.stringContaining('QC evaluation started'), evalId: expect.any(String), creditsUsed: expect.any(Number), isProcessing: true },
		]);
		const { evalId, creditsUsed } = result.json[0] as { evalId: string; creditsUsed: number };
		expect(qcCharges(order.id)).toEqual([expect.objectContaining({ credits: creditsUsed })]);
		expect(order.latestEvaluation).toEqual({ id: evalId, orderId: order.id, createdAt: expect.any(String), isLoading: true });
		sandbox().clock.advance(5);
		expect(order.latestEvaluation).toMatchObject({ id: evalId, isLoading: false, textSummary: expect.any(String) });
		expect(order.latestEvaluation?.scores?.map((score) => score.name)).toEqual(['Accuracy', 'Fluency', 'Tone', 'Cultural Fit']);
	});

	it('sends the chosen criteria, the custom prompt and the callback URL', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'delivered', progress: false });

		const result = await run(
			sandbox(),
			qc(order.id, { tone: false, culturalFit: false, options: { customPrompt: '  Keep product names in English ', callbackUrl: 'https://hooks.example.com/qc' } }),
		);

		expect(result.error).toBeUndefined();
		sandbox().clock.advance(5);
		expect(order.latestEvaluation?.scores?.map((score) => score.name)).toEqual(['Accuracy', 'Fluency']);
		expect(order.latestEvaluation?.textSummary).toContain('Keep product names in English');
	});

	it.each([
		['http://hooks.example.com/qc', /^Invalid Callback URL \(item 0\): "http:\/\/hooks\.example\.com\/qc" must start with https:\/\//],
		['https://localhost:5678/webhook/qc', /^Invalid Callback URL \(item 0\): "localhost" is a local or private address/],
		['https://192.168.1.20/qc', /^Invalid Callback URL \(item 0\): "192\.168\.1\.20" is a local or private address/],
		['https://[::1]/qc', /^Invalid Callback URL \(item 0\): "\[::1\]" is a local or private address/],
		// IPv6 forms that reach a private IPv4 address; the URL parser rewrites them in hex (::ffff:7f00:1).
		['https://[::ffff:127.0.0.1]/qc', /^Invalid Callback URL \(item 0\): "\[::ffff:7f00:1\]" is a local or private address/],
		['https://[::ffff:0:10.1.2.3]/qc', /^Invalid Callback URL \(item 0\): "\[::ffff:0:a01:203\]" is a local or private address/],
		['https://[64:ff9b::192.168.0.1]/qc', /^Invalid Callback URL \(item 0\): "\[64:ff9b::c0a8:1\]" is a local or private address/],
		['https://[::127.0.0.1]/qc', /^Invalid Callback URL \(item 0\): "\[::7f00:1\]" is a local or private address/],
		['not a url', /^Invalid Callback URL \(item 0\): "not a url" is not a valid URL/],
	])('refuses the callback URL %s before anything is sent', async (callbackUrl, message) => {
		const error = failure(await run(sandbox(), qc(sandbox().fixtures.orders.completedLevel0, { options: { callbackUrl } })));

		expect(error.message).toMatch(message);
		expect(error.description).toContain('Nothing was sent to Ollang');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('refuses an evaluation with every criterion off, before anything is sent', async () => {
		const parameters = qc(sandbox().fixtures.orders.completedLevel0, { accuracy: false, fluency: false, tone: false, culturalFit: false });

		const error = failure(await run(sandbox(), parameters));

		expect(error.message).toBe('Invalid Accuracy (item 0): turn on at least one of Accuracy, Fluency, Tone or Cultural Fit');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('ORDER_NOT_ELIGIBLE for an ongoing order, with a QC-specific hint; nothing charged', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc', status: 'ongoing', progress: false });

		const error = failure(await run(sandbox(), qc(order.id)));

		expect(error.message).toContain('ORDER_NOT_ELIGIBLE');
		expect(error.description).toContain('A QC evaluation can be run only on completed or delivered orders');
		expect(qcCharges(order.id)).toEqual([]);
	});
});
