// Binary between nodes: Export XLSX puts the file in n8n's binary data store, and Upload File in the next
// node reads those same bytes back through the engine and sends them to the API.
import ExcelJS from 'exceljs';
import { nodeOutput, readBinary } from '../harness/engine.cts';
import { byId, jsonOf, ollangNode, runChain, useSandbox } from './helpers.cts';

const sandbox = useSandbox();

const exportXlsx = ollangNode('Export XLSX', {
	resource: 'order',
	operation: 'exportXlsx',
	orderId: byId('={{ $json.orderId }}'),
	binaryPropertyName: 'sheet',
});
const uploadFile = ollangNode('Upload File', {
	resource: 'upload',
	operation: 'uploadFile',
	binaryPropertyName: 'sheet',
	sourceLanguage: "={{ $('Test Items').item.json.language }}",
});

async function sheetRows(bytes: Buffer): Promise<unknown[][]> {
	const workbook = new ExcelJS.Workbook();
	await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
	const rows: unknown[][] = [];
	workbook.worksheets[0].eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
	return rows;
}

describe('Export XLSX -> Upload File', () => {
	it('the exported workbook is stored as binary, and the next node uploads that whole file (same name and size)', async () => {
		const order = sandbox().state.orders.get(sandbox().fixtures.orders.subtitleCompleted);
		if (!order) throw new Error('fixture order missing');

		const run = await runChain(sandbox(), [{ json: { orderId: order.id, language: order.sourceLanguage } }], [
			exportXlsx,
			uploadFile,
		]);

		const exported = nodeOutput(run, 'Export XLSX')[0];
		const bytes = await readBinary(exported, 'sheet');
		const rows = await sheetRows(bytes);
		const [uploaded] = jsonOf(nodeOutput(run, 'Upload File'));
		const project = sandbox().state.projects.get(String(uploaded.projectId));

		expect(run.status).toBe('success');
		expect(exported.binary?.sheet).toMatchObject({
			fileName: `${order.name}_${order.targetLanguage}.xlsx`,
			mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
		});
		expect(rows[0]).toEqual(['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES', order.targetLanguage]);
		expect(rows).toHaveLength(order.segmentCount + 1);
		expect(project?.source).toMatchObject({
			fileName: `${order.name}_${order.targetLanguage}.xlsx`,
			size: bytes.length,
			kind: 'document',
		});
		expect(project?.sourceLanguage).toBe(order.sourceLanguage);
	});

	it('an order without segment data fails the export, and the upload never runs', async () => {
		const orderId = sandbox().fixtures.orders.noSegmentData;

		const run = await runChain(sandbox(), [{ json: { orderId, language: 'en' } }], [exportXlsx, uploadFile]);

		expect(run.status).toBe('error');
		expect(run.data.resultData.lastNodeExecuted).toBe('Export XLSX');
		expect(run.data.resultData.error?.message).toContain(`No segment data found for order ${orderId}`);
		expect(run.data.resultData.runData['Upload File']).toBeUndefined();
		expect(sandbox().requests.count({ path: '/integration/upload/direct' })).toBe(0);
	});
});
