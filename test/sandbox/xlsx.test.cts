import ExcelJS from 'exceljs';
import type { Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeA, useSandbox } from './helpers.cts';
import { zipEntry } from './zip.cts';

const sandbox = useSandbox();
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

async function download(sandbox: Sandbox, orderId: string) {
	const response = await fetch(new URL(`/integration/orders/${orderId}/export-xlsx`, sandbox.baseUrl), { headers: { 'x-api-key': sandbox.keys.owner } });
	return { response, data: Buffer.from(await response.arrayBuffer()) };
}

async function rowsOf(data: Buffer): Promise<unknown[][]> {
	const workbook = new ExcelJS.Workbook();
	await workbook.xlsx.load(data as unknown as ArrayBuffer);
	const sheet = workbook.worksheets[0];
	const rows: unknown[][] = [];
	sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
	return rows;
}

describe('GET /integration/orders/{orderId}/export-xlsx', () => {
	it('streams a workbook with SR NO, TCR, SPEAKER, DIALOGUES and the target language column', async () => {
		const orderId = sandbox().fixtures.orders.byType.subtitle;
		const order = sandbox().state.orders.get(orderId)!;
		const { response, data } = await download(sandbox(), orderId);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe(XLSX_TYPE);
		expect(response.headers.get('content-disposition')).toContain(`attachment; filename="${order.name}_${order.targetLanguage}.xlsx"`);
		const rows = await rowsOf(data);
		expect(rows[0]).toEqual(['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES', order.targetLanguage]);
		expect(rows).toHaveLength(order.segmentCount + 1);
		const body = rows.slice(1);
		expect(body.map((row) => row[0])).toEqual(Array.from({ length: order.segmentCount }, (_, i) => i + 1));
		for (const [, tcr, speaker, dialogue, translation] of body) {
			expect(tcr).toMatch(/^\d\d:\d\d:\d\d:\d\d$/);
			expect(speaker).toMatch(/^Speaker [1-3]$/);
			expect(dialogue).toMatch(/^[A-Z].+\.$/);
			expect(translation).toMatch(/^[A-Z].+\.$/);
		}
		const timecodes = body.map((row) => row[1] as string);
		expect(timecodes).toEqual([...timecodes].sort());
	});

	it('generates the same rows for the same order every time', async () => {
		const orderId = sandbox().fixtures.orders.byType.cc;
		const [first, second] = [await download(sandbox(), orderId), await download(sandbox(), orderId)];
		expect(await rowsOf(second.data)).toEqual(await rowsOf(first.data));
	});

	it('keeps any order name in the filename (RFC 6266 filename*)', async () => {
		const upload = await call(sandbox(), 'POST', '/integration/upload/direct-url', {
			body: { url: 'https://cdn.example.com/cafe.mp4', originalname: 'Café "déjà vu".mp4', size: 3_000_000, sourceLanguage: 'en' },
		});
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc', projectId: upload.body.projectId, targetLanguage: 'fr', status: 'completed' });
		const { response } = await download(sandbox(), order.id);
		expect(response.status).toBe(200);
		const disposition = response.headers.get('content-disposition')!;
		expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(`${order.name}_fr.xlsx`)}`);
		expect(disposition).toMatch(/filename="Caf_ _d_j_ vu_ - FR_fr\.xlsx"/);
	});

	it('answers 500 shape B when the order has no segment data', async () => {
		const { orders } = sandbox().fixtures;
		for (const orderId of [orders.noSegmentData, orders.byStatus.pending]) {
			const order = sandbox().state.orders.get(orderId)!;
			const response = await call(sandbox(), 'GET', `/integration/orders/${orderId}/export-xlsx`);
			expect(response.status).toBe(500);
			expect(response.body).toEqual({ statusCode: 500, message: `No segment data found for order ${orderId} and target language ${order.targetLanguage}`, error: 'Internal Server Error' });
		}
	});

	it('answers order errors in shape A', async () => {
		const missing = await call(sandbox(), 'GET', '/integration/orders/0123456789abcdef01234567/export-xlsx');
		expect(missing.status).toBe(404);
		expectShapeA(missing.body, 'ORDER_NOT_FOUND');
		const denied = await call(sandbox(), 'GET', `/integration/orders/${sandbox().fixtures.orders.hiddenFromMember}/export-xlsx`, { key: sandbox().keys.member });
		expect(denied.status).toBe(403);
		expectShapeA(denied.body, 'ACCESS_DENIED');
	});

	it('streams a 100,000-segment export (chunked, no Content-Length) that reads back complete', async () => {
		const orderId = sandbox().fixtures.orders.largeExport;
		const { response, data } = await download(sandbox(), orderId);
		expect(response.status).toBe(200);
		expect(response.headers.get('content-length')).toBeNull();
		expect(response.headers.get('transfer-encoding')).toBe('chunked');
		const sheet = zipEntry(data, 'xl/worksheets/sheet1.xml').toString('utf8');
		expect(sheet.match(/<row /g)).toHaveLength(100_001);
		expect(sheet).toMatch(/<row r="1"[^>]*>.*?SR NO.*?<\/row>/);
		const lastRow = sheet.slice(sheet.lastIndexOf('<row '));
		expect(lastRow).toMatch(/^<row r="100001"[^>]*><c r="A100001"[^>]*><v>100000<\/v><\/c>/);
	});
});
