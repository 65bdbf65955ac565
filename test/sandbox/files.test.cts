import { call, useSandbox } from './helpers.cts';
import { zipEntry } from './zip.cts';

// The storage host: order documents behind signed, expiring links on a port of its own.
const sandbox = useSandbox();

async function orderLinks(orderId: string): Promise<{ vttUrl?: string; orderDocs: Array<{ type: string; name: string; url: string }> }> {
	return (await call(sandbox(), 'GET', `/integration/orders/${orderId}`)).body;
}

async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; bytes: Buffer }> {
	const answer = await fetch(url, { headers });
	return { status: answer.status, type: answer.headers.get('content-type'), bytes: Buffer.from(await answer.arrayBuffer()) };
}

beforeEach(() => {
	sandbox().files.requests.length = 0;
	sandbox().files.settings.expireNextReads = 0;
	sandbox().files.settings.lifetimeSec = 3600;
});

describe('storage host', () => {
	it('serves Get order\'s links from another origin, with real content per type', async () => {
		const { byType } = sandbox().fixtures.orders;
		const order = await orderLinks(byType.aiDubbing);
		expect(sandbox().files.origin).not.toBe(sandbox().baseUrl);
		expect(order.vttUrl?.startsWith(`${sandbox().files.origin}/files/orders/`)).toBe(true);
		const vtt = await fetchBytes(order.vttUrl ?? '');
		expect([vtt.status, vtt.type]).toEqual([200, 'text/vtt']);
		expect(vtt.bytes.toString('utf8')).toMatch(/^WEBVTT\n\n1\n00:00:00\.000 --> 00:00:03\.500\n/);
		const audio = await fetchBytes(order.orderDocs.find((doc) => doc.type === 'dubbedAudio')?.url ?? '');
		expect([audio.status, audio.type, [...audio.bytes.subarray(0, 4)]]).toEqual([200, 'audio/mpeg', [0xff, 0xfb, 0x90, 0xc0]]);
		// Whole frames of 417 bytes.
		expect(audio.bytes.length % 417).toBe(0);
		const document = await orderLinks(byType.document);
		const docx = await fetchBytes(document.orderDocs.find((doc) => doc.type === 'translation')?.url ?? '');
		expect(zipEntry(docx.bytes, '[Content_Types].xml').toString('utf8')).toContain('wordprocessingml.document.main+xml');
		const video = await fetchBytes(order.orderDocs.find((doc) => doc.type === 'sourceVideo')?.url ?? '');
		expect([video.type, video.bytes.subarray(4, 12).toString('ascii')]).toEqual(['video/mp4', 'ftypisom']);
		expect(sandbox().files.requests.map((request) => [request.status, request.apiKeySent])).toEqual([
			[200, false],
			[200, false],
			[200, false],
			[200, false],
		]);
	});

	it('answers 403 as S3 does once a link expired, for a wrong signature, and for another path (the signature covers it)', async () => {
		const order = await orderLinks(sandbox().fixtures.orders.byType.subtitle);
		const url = order.vttUrl ?? '';
		// A full lifetime, and the rest of the hour it is rounded up to.
		sandbox().clock.advance(121);
		const expired = await fetchBytes(url);
		expect([expired.status, expired.bytes.toString('utf8')]).toEqual([403, expect.stringContaining('<Code>AccessDenied</Code><Message>Request has expired</Message>')]);
		const fresh = (await orderLinks(sandbox().fixtures.orders.byType.subtitle)).vttUrl ?? '';
		expect((await fetchBytes(fresh)).status).toBe(200);
		const forged = await fetchBytes(fresh.replace(/signature=[0-9a-f]/, (match) => (match.endsWith('0') ? `${match.slice(0, -1)}1` : `${match.slice(0, -1)}0`)));
		expect([forged.status, forged.bytes.toString('utf8')]).toEqual([403, expect.stringContaining('<Code>SignatureDoesNotMatch</Code>')]);
		expect((await fetchBytes(fresh.replace(/expires=\d+/, 'expires=99999999999'))).status).toBe(403);
		const unknown = new URL(fresh);
		unknown.pathname = unknown.pathname.replace(/[^/]+$/, 'missing.vtt');
		expect((await fetchBytes(unknown.href)).status).toBe(403);
	});

	it('hands out expired links for the next reads when told to (for testing a refresh)', async () => {
		sandbox().files.settings.expireNextReads = 1;
		const id = sandbox().fixtures.orders.byType.subtitle;
		expect((await fetchBytes((await orderLinks(id)).vttUrl ?? '')).status).toBe(403);
		expect((await fetchBytes((await orderLinks(id)).vttUrl ?? '')).status).toBe(200);
	});

	it('records a request that carries an API key, in a header of any name', async () => {
		const url = (await orderLinks(sandbox().fixtures.orders.byType.subtitle)).vttUrl ?? '';
		await fetchBytes(url, { 'x-api-key': 'anything' });
		await fetchBytes(url, { authorization: `Bearer ${sandbox().keys.billing}` });
		await fetchBytes(url);
		expect(sandbox().files.requests.map((request) => request.apiKeySent)).toEqual([true, true, false]);
	});

	it('a large file: generated as it is sent, exactly the size asked, a valid MP4 head', async () => {
		const orderId = sandbox().fixtures.orders.subtitleCompleted;
		const bytes = 64 * 1024 * 1024 + 7;
		const created = await fetch(`${sandbox().baseUrl}/__sandbox/files/large`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderId, bytes }) });
		const doc = (await created.json()) as { name: string; size: number };
		expect([created.status, doc.size]).toEqual([201, bytes]);
		const link = (await orderLinks(orderId)).orderDocs.find((entry) => entry.name === doc.name)?.url ?? '';
		const answer = await fetch(link);
		expect(answer.headers.get('content-length')).toBe(String(bytes));
		let received = 0;
		let head = Buffer.alloc(0);
		for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
			if (head.length < 64) head = Buffer.concat([head, Buffer.from(chunk)]).subarray(0, 64);
			received += chunk.length;
		}
		expect(received).toBe(bytes);
		expect(head.subarray(4, 8).toString('ascii')).toBe('ftyp');
	});
});
