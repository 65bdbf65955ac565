import { createHash } from 'node:crypto';
import type { INodeParameters } from 'n8n-workflow';
import type { OrderRecord } from '../../sandbox/index.cts';
import { readBinary } from '../harness/engine.cts';
import { zipEntry } from '../sandbox/zip.cts';
import { byId, failure, pairedIndexes, run, startStub, useSandbox } from './setup.cts';
import type { Run } from './setup.cts';

// Order > Download Files against the sandbox's storage host (signed links on a second port), through n8n's engine.
const sandbox = useSandbox();
type Json = Record<string, unknown>;

const download = (orderId: string, kind = 'deliverables', binaryPropertyName = 'data'): INodeParameters => ({
	resource: 'order',
	operation: 'downloadFiles',
	orderId: byId(orderId),
	kind,
	binaryPropertyName,
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function orderOf(id: string): OrderRecord {
	const order = sandbox().state.orders.get(id);
	if (!order) throw new Error(`no order ${id}`);
	return order;
}

/** What the sandbox serves for the order right now: Get order as the API answers it, each link fetched without a key. */
async function served(orderId: string): Promise<Map<string, { bytes: Buffer; mimeType: string }>> {
	const answer = await fetch(`${sandbox().baseUrl}/integration/orders/${orderId}`, { headers: { 'x-api-key': sandbox().keys.owner } });
	const order = (await answer.json()) as { orderDocs: Array<{ name: string; url: string }> };
	const files = new Map<string, { bytes: Buffer; mimeType: string }>();
	for (const doc of order.orderDocs.filter((entry) => entry.url.startsWith(sandbox().files.origin))) {
		const response = await fetch(doc.url);
		files.set(doc.name, { bytes: Buffer.from(await response.arrayBuffer()), mimeType: response.headers.get('content-type') ?? '' });
	}
	return files;
}

/** Each output item: its json, and the sha256 of its stored bytes. */
async function outputFiles(result: Run): Promise<Array<Json & { sha256: string }>> {
	return await Promise.all(result.items.map(async (item) => ({ ...(item.json as Json), sha256: sha256(await readBinary(item)) })));
}

function hintsOf(result: Run): string[] {
	return (result.run.data.resultData.runData[result.nodeName]?.[0]?.hints ?? []).map((hint) => hint.message);
}

function assertKeyNeverAtStorage(): void {
	const requests = sandbox().files.requests;
	expect(requests.length).toBeGreaterThan(0);
	expect(requests.filter((request) => request.apiKeySent)).toEqual([]);
}

beforeEach(() => {
	sandbox().files.requests.length = 0;
	sandbox().files.settings.expireNextReads = 0;
});

describe('Order > Download Files', () => {
	it('every kind: one item per file, bytes as the storage host served them, names and MIME types from the document', async () => {
		const { byType } = sandbox().fixtures.orders;
		const cases: Array<{ orderId: string; kind: string; expected: Array<[string, string, string]> }> = [
			{ orderId: byType.subtitle, kind: 'subtitles', expected: [['subtitles', 'subtitle', 'text/vtt']] },
			{ orderId: byType.document, kind: 'translatedDocument', expected: [['translatedDocument', 'translation', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document']] },
			{ orderId: byType.aiDubbing, kind: 'dubbedAudio', expected: [['dubbedAudio', 'dubbedAudio', 'audio/mpeg']] },
			{ orderId: byType.studioDubbing, kind: 'embeddedVideo', expected: [['embeddedVideo', 'dubbedVideo', 'video/mp4']] },
			{ orderId: byType.aiDubbing, kind: 'source', expected: [['source', 'sourceVideo', 'video/mp4']] },
		];
		for (const { orderId, kind, expected } of cases) {
			const order = orderOf(orderId);
			const files = await served(orderId);
			const result = await run(sandbox(), download(orderId, kind));
			expect(result.error).toBeUndefined();
			const out = await outputFiles(result);
			expect(out.map((file) => [file.kind, file.type, file.mimeType])).toEqual(expected);
			for (const file of out) {
				const doc = order.orderDocs.find((entry) => entry.name === file.fileName);
				expect(doc).toBeDefined();
				const bytes = files.get(String(file.fileName))?.bytes ?? Buffer.alloc(0);
				expect(file).toEqual({
					orderId,
					language: kind === 'source' ? order.sourceLanguage : order.targetLanguage,
					kind: file.kind,
					type: doc?.type,
					fileName: doc?.name,
					mimeType: file.mimeType,
					fileSize: bytes.length,
					sha256: sha256(bytes),
				});
				expect(bytes.length).toBeGreaterThan(100);
			}
			const item = result.items[0];
			expect([item.binary?.data.fileName, item.binary?.data.mimeType]).toEqual([out[0].fileName, out[0].mimeType]);
		}
		assertKeyNeverAtStorage();
	});

	it('the files are what they say: a VTT of the order\'s segments, a Word document, an MP3 frame, an MP4 box', async () => {
		const { byType } = sandbox().fixtures.orders;
		const first = async (orderId: string, kind: string) => await readBinary((await run(sandbox(), download(orderId, kind))).items[0]);
		const vtt = (await first(byType.subtitle, 'subtitles')).toString('utf8');
		expect(vtt).toMatch(/^WEBVTT\n\n1\n00:00:00\.000 --> 00:00:03\.500\n\S/);
		const document = zipEntry(await first(byType.document, 'translatedDocument'), 'word/document.xml').toString('utf8');
		expect(document).toMatch(/<w:body><w:p>/);
		expect([...(await first(byType.aiDubbing, 'dubbedAudio')).subarray(0, 2)]).toEqual([0xff, 0xfb]);
		expect((await first(byType.studioDubbing, 'embeddedVideo')).subarray(4, 8).toString('ascii')).toBe('ftyp');
	});

	it('All Deliverables leaves the source out; All Files adds it; the field name is the one given', async () => {
		const orderId = sandbox().fixtures.orders.byType.aiDubbing;
		const deliverables = await run(sandbox(), download(orderId, 'deliverables', 'file'));
		const all = await run(sandbox(), download(orderId, 'all', 'file'));
		expect(deliverables.json.map((file) => file.kind).sort()).toEqual(['dubbedAudio', 'subtitles']);
		expect(all.json.map((file) => file.kind).sort()).toEqual(['dubbedAudio', 'source', 'subtitles']);
		expect(deliverables.items.every((item) => Object.keys(item.binary ?? {}).join() === 'file')).toBe(true);
		expect(pairedIndexes(all)).toEqual([0, 0, 0]);
	});

	it('a closed-caption order\'s subtitles are in the source language; the vttUrl is not downloaded twice', async () => {
		const order = orderOf(sandbox().fixtures.orders.byType.cc);
		const result = await run(sandbox(), download(order.id, 'subtitles'));
		expect(result.json.map((file) => [file.kind, file.language, file.fileName])).toEqual([
			['subtitles', order.sourceLanguage, order.orderDocs.find((doc) => doc.type === 'subtitle')?.name],
		]);
	});

	it('an embedded video once the embedding is done', async () => {
		const orderId = sandbox().fixtures.orders.subtitleCompleted;
		await fetch(`${sandbox().baseUrl}/integration/orders/${orderId}/subtitle-embedding`, { method: 'POST', headers: { 'x-api-key': sandbox().keys.owner } });
		sandbox().clock.advance(5);
		const result = await run(sandbox(), download(orderId, 'embeddedVideo'));
		expect(result.json.map((file) => [file.type, file.mimeType])).toEqual([['created_subtitle_embedded_video', 'video/mp4']]);
	});

	it('a filter that matches nothing: no item, no error, no file fetched, and a hint saying why', async () => {
		const pending = sandbox().fixtures.orders.byStatus.pending;
		const subtitleOrder = sandbox().fixtures.orders.byType.subtitle;
		const none = await run(sandbox(), download(subtitleOrder, 'translatedDocument'));
		const notYet = await run(sandbox(), download(pending, 'deliverables'));
		for (const result of [none, notYet]) {
			expect(result.error).toBeUndefined();
			expect(result.items).toEqual([]);
		}
		expect(hintsOf(none)).toEqual([expect.stringContaining(`Order ${subtitleOrder} (status ${orderOf(subtitleOrder).status}) has no file of the kind "Translated Document"`)]);
		expect(hintsOf(notYet)).toEqual([expect.stringContaining(`(status ${orderOf(pending).status}) has no file of the kind "All Deliverables" yet`)]);
		expect(sandbox().files.requests).toEqual([]);
	});

	it('an expired link (403) is refreshed once by reading the order again; every later file uses the fresh links', async () => {
		const orderId = sandbox().fixtures.orders.byType.aiDubbing;
		const expected = await served(orderId);
		sandbox().files.requests.length = 0;
		sandbox().requests.reset();
		sandbox().files.settings.expireNextReads = 1;

		const result = await run(sandbox(), download(orderId, 'deliverables'));

		expect(result.error).toBeUndefined();
		const out = await outputFiles(result);
		expect(out.map((file) => file.sha256).sort()).toEqual(out.map((file) => sha256(expected.get(String(file.fileName))?.bytes ?? Buffer.alloc(0))).sort());
		expect(sandbox().requests.count({ method: 'GET', path: `/integration/orders/${orderId}` })).toBe(2);
		expect(sandbox().files.requests.map((request) => request.status)).toEqual([403, 200, 200]);
		assertKeyNeverAtStorage();
	});

	it('a link still refused after the refresh fails the item with the storage host\'s reason, the signature not shown', async () => {
		const orderId = sandbox().fixtures.orders.byType.subtitle;
		sandbox().files.settings.expireNextReads = 2;
		const result = await run(sandbox(), download(orderId, 'subtitles'));
		const error = failure(result);
		expect(error.message).toMatch(/^The storage host refused the link of .+\.vtt \(403: Request has expired\)$/);
		expect(error.httpCode).toBe('403');
		expect(`${error.message} ${error.description}`).not.toMatch(/signature=|expires=/);
		expect(sandbox().files.requests.map((request) => request.status)).toEqual([403, 403]);
	});

	describe('storage hosts that answer otherwise (a stub in place of a document\'s link)', () => {
		async function withStubLink(handler: Parameters<typeof startStub>[0], check: (result: Run, stub: Awaited<ReturnType<typeof startStub>>) => Promise<void> | void) {
			const order = orderOf(sandbox().fixtures.orders.byType.document);
			const doc = order.orderDocs.find((entry) => entry.type === 'translation');
			if (!doc) throw new Error('fixture has no translation');
			const original = doc.url;
			const stub = await startStub(handler);
			doc.url = `${stub.baseUrl}/bucket/${encodeURIComponent(doc.name)}?X-Amz-Signature=secret-signature`;
			try {
				await check(await run(sandbox(), download(order.id, 'translatedDocument')), stub);
				for (const request of stub.requests) {
					expect(request.apiKey).toBeUndefined();
					expect(JSON.stringify(request.headers)).not.toContain(sandbox().keys.owner);
				}
			} finally {
				doc.url = original;
				await stub.close();
			}
		}

		it('a 503 is retried, and the file stored whole', async () => {
			let calls = 0;
			await withStubLink(
				(_req, res) => {
					calls += 1;
					if (calls === 1) res.writeHead(503).end('busy');
					else res.writeHead(200, { 'content-type': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' }).end('docx bytes');
				},
				async (result, stub) => {
					expect(result.error).toBeUndefined();
					expect(stub.requests).toHaveLength(2);
					expect((await readBinary(result.items[0])).toString()).toBe('docx bytes');
					expect(result.json[0].fileSize).toBe(10);
				},
			);
		});

		it('a 404 fails with the host\'s message and no signature; a 400 counts as an expired link', async () => {
			await withStubLink(
				(_req, res) => res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>'),
				(result) => {
					const error = failure(result);
					expect(error.message).toMatch(/answered 404 for .+: The specified key does not exist\.$/);
					expect(error.description).toContain('no longer where the order says');
					expect(JSON.stringify(error)).not.toContain('secret-signature');
				},
			);
			await withStubLink(
				(_req, res) => res.writeHead(400).end('<Error><Message>Invalid argument.</Message></Error>'),
				(result, stub) => {
					// Refreshed once: the second read of the order gives the same (stub) link, refused again.
					expect(stub.requests).toHaveLength(2);
					expect(failure(result).message).toContain('(400: Invalid argument.)');
				},
			);
		});

		it('a link over plain http to a remote host is not fetched', async () => {
			const order = orderOf(sandbox().fixtures.orders.byType.document);
			const doc = order.orderDocs.find((entry) => entry.type === 'translation');
			if (!doc) throw new Error('fixture has no translation');
			const original = doc.url;
			doc.url = 'http://storage.example.com/bucket/file.docx?sig=1';
			try {
				const error = failure(await run(sandbox(), download(order.id, 'translatedDocument')));
				expect(error.message).toContain('uses plain http to a remote host, which would send the file unencrypted');
			} finally {
				doc.url = original;
			}
		});
	});

	it('the storage host records a key when one is sent (so the checks above can fail)', async () => {
		const order = (await (await fetch(`${sandbox().baseUrl}/integration/orders/${sandbox().fixtures.orders.byType.subtitle}`, { headers: { 'x-api-key': sandbox().keys.owner } })).json()) as { vttUrl: string };
		await fetch(order.vttUrl, { headers: { 'x-api-key': sandbox().keys.owner } });
		await fetch(order.vttUrl, { headers: { authorization: `Bearer ${sandbox().keys.member}` } });
		expect(sandbox().files.requests.map((request) => request.apiKeySent)).toEqual([true, true]);
	});

	it('bad input is refused before any request: empty field name, unknown kind, an ID with a slash', async () => {
		const orderId = sandbox().fixtures.orders.byType.subtitle;
		const cases: Array<[INodeParameters, RegExp]> = [
			[download(orderId, 'subtitles', ' '), /^Invalid Put Output File in Field \(item 0\): must not be empty$/],
			[download(orderId, 'everything'), /^Invalid Files \(item 0\): "everything" is not one of: deliverables, all, dubbedAudio, embeddedVideo, source, subtitles, translatedDocument$/],
			[{ ...download(orderId, 'subtitles'), orderId: byId('={{ "a/b" }}') }, /^Invalid Order \(item 0\): the ID must not contain '\/'$/],
		];
		for (const [parameters, message] of cases) {
			sandbox().requests.reset();
			expect(failure(await run(sandbox(), parameters)).message).toMatch(message);
			expect(sandbox().requests.count()).toBe(0);
		}
		expect(sandbox().files.requests).toEqual([]);
	});
});
