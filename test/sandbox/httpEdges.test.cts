import { connect } from 'node:net';
import { rawMultipart, useSandbox, type RawPart } from './helpers.cts';

/** The HTTP layer at its edges: malformed framing, HEAD, and multipart uploads sent chunked (no Content-Length). */
const sandbox = useSandbox();

interface RawResponse {
	status: number;
	headers: Record<string, string>;
	body: string;
}

/** Writes raw bytes to the sandbox's port and reads every response until the server closes the connection. */
function exchange(bytes: string): Promise<RawResponse[]> {
	const { port } = new URL(sandbox().baseUrl);
	return new Promise((resolve, reject) => {
		const socket = connect(Number(port), '127.0.0.1');
		const chunks: Buffer[] = [];
		socket.on('data', (chunk: Buffer) => chunks.push(chunk));
		socket.on('error', reject);
		socket.on('close', () => resolve(parseResponses(Buffer.concat(chunks).toString('utf8'))));
		socket.write(bytes);
	});
}

/** Splits a stream of HTTP/1.1 responses framed by Content-Length (every answer of the sandbox has one or none). */
function parseResponses(text: string): RawResponse[] {
	const responses: RawResponse[] = [];
	let rest = text;
	while (rest.length > 0) {
		const headerEnd = rest.indexOf('\r\n\r\n');
		if (headerEnd < 0) throw new Error(`not an HTTP response: ${JSON.stringify(rest)}`);
		const [statusLine, ...lines] = rest.slice(0, headerEnd).split('\r\n');
		const headers: Record<string, string> = {};
		for (const line of lines) {
			const colon = line.indexOf(':');
			headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
		}
		const length = Number(headers['content-length'] ?? 0);
		responses.push({ status: Number(statusLine.split(' ')[1]), headers, body: rest.slice(headerEnd + 4, headerEnd + 4 + length) });
		rest = rest.slice(headerEnd + 4 + length);
	}
	return responses;
}

describe('malformed requests get the API\'s JSON error body', () => {
	it('a Content-Length shorter than the body: every answer is a 400 with a shape B JSON body, then the connection closes', async () => {
		const body = JSON.stringify({ targetLanguage: 'de', translations: [{ sourceText: 'Hello', targetText: 'Hallo' }] });
		const responses = await exchange(
			`POST /integration/content/import HTTP/1.1\r\nHost: sandbox\r\nX-Api-Key: ${sandbox().keys.owner}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n${body}`,
		);
		expect(responses.length).toBeGreaterThan(0);
		for (const response of responses) {
			expect({ status: response.status, type: response.headers['content-type'] }).toEqual({ status: 400, type: 'application/json; charset=utf-8' });
			expect(JSON.parse(response.body)).toEqual({ statusCode: 400, message: expect.any(String), error: 'Bad Request' });
		}
		expect(responses.at(-1)?.headers.connection).toBe('close');
	});

	it('a request line that is not HTTP gets the same JSON 400', async () => {
		const [response, ...more] = await exchange('HELLO THERE\r\n\r\n');
		expect(more).toEqual([]);
		expect(response.status).toBe(400);
		expect(JSON.parse(response.body)).toEqual({ statusCode: 400, message: expect.stringContaining('could not be parsed'), error: 'Bad Request' });
	});
});

describe('HEAD', () => {
	it('HEAD /health answers like GET /health, without a body', async () => {
		const get = await fetch(new URL('/health', sandbox().baseUrl));
		const getBody = await get.text();
		const head = await fetch(new URL('/health', sandbox().baseUrl), { method: 'HEAD' });
		expect(head.status).toBe(200);
		expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
		expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(getBody)));
		expect(await head.text()).toBe('');
		expect(sandbox().requests.count({ method: 'HEAD', path: '/health' })).toBe(1);
	});

	it('HEAD on a keyed route authenticates like GET (401 without a body), and 200 with the key', async () => {
		const anonymous = await fetch(new URL('/integration/credits', sandbox().baseUrl), { method: 'HEAD' });
		expect(anonymous.status).toBe(401);
		expect(await anonymous.text()).toBe('');
		const keyed = await fetch(new URL('/integration/credits', sandbox().baseUrl), { method: 'HEAD', headers: { 'x-api-key': sandbox().keys.billing } });
		expect(keyed.status).toBe(200);
	});
});

/** Posts multipart as a stream: fetch then sends Transfer-Encoding: chunked and no Content-Length. */
async function postChunked(path: string, parts: RawPart[]): Promise<{ status: number; body: any }> {
	const { body, contentType } = rawMultipart(parts);
	const stream = new ReadableStream({
		start(controller) {
			// Two pieces, so the parser sees the form across chunks of the chunked encoding.
			controller.enqueue(new Uint8Array(body.subarray(0, 40)));
			controller.enqueue(new Uint8Array(body.subarray(40)));
			controller.close();
		},
	});
	const response = await fetch(new URL(path, sandbox().baseUrl), {
		method: 'POST',
		body: stream,
		headers: { 'x-api-key': sandbox().keys.owner, 'content-type': contentType },
		duplex: 'half',
	} as RequestInit);
	return { status: response.status, body: await response.json() };
}

describe('multipart uploads sent chunked (no Content-Length) are accepted, as the usual multipart middleware does', () => {
	it('Upload File: 201 and the project exists with the file size counted', async () => {
		const response = await postChunked('/integration/upload/direct', [
			{ name: 'name', value: 'Chunked' },
			{ name: 'sourceLanguage', value: 'en' },
			{ name: 'file', filename: 'chunked.mp4', content: Buffer.alloc(70_000, 1) },
		]);
		expect(response).toEqual({ status: 201, body: { projectId: expect.stringMatching(/^[0-9a-f]{24}$/) } });
		expect(sandbox().state.projects.get(response.body.projectId)?.source).toMatchObject({ fileName: 'chunked.mp4', size: 70_000 });
	});

	it('Upload VTT and Folder > Upload Document: 201', async () => {
		const projectId = sandbox().fixtures.projects.writable;
		const vtt = await postChunked('/integration/upload/vtt', [
			{ name: 'projectId', value: projectId },
			{ name: 'name', value: 'Chunked VTT' },
			{ name: 'file', filename: 'chunked.vtt', content: 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n' },
		]);
		expect(vtt).toEqual({ status: 201, body: { projectId } });
		const folderId = sandbox().fixtures.folders.writable;
		const doc = await postChunked(`/integration/folder/${folderId}/docs/upload`, [
			{ name: 'type', value: 'glossary' },
			{ name: 'file', filename: 'terms.pdf', content: 'pdf' },
		]);
		expect(doc.status).toBe(201);
		expect(doc.body).toMatchObject({ folderId, type: 'glossary', fileName: 'terms.pdf', size: 3 });
	});
});
