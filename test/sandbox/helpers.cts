import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.cts';

/** Starts one in-process sandbox for the file (free port, quiet) and stops it afterwards. */
export function useSandbox(options: SandboxOptions = {}): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ quiet: true, ...options });
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	return () => {
		if (!sandbox) throw new Error('sandbox not started');
		return sandbox;
	};
}

export interface ApiResponse<T = any> {
	status: number;
	headers: Headers;
	body: T;
	text: string;
}

export interface CallOptions {
	/** Default: the owner's key; null sends no key. */
	key?: string | null;
	body?: unknown;
	/** Literal keys: { 'pageOptions[take]': 5 }. */
	query?: Record<string, string | number | boolean | undefined>;
	headers?: Record<string, string>;
}

/** Real HTTP to the sandbox with global fetch; JSON bodies are parsed when the response is JSON. */
export async function call<T = any>(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
	const url = new URL(path, sandbox.baseUrl);
	for (const [name, value] of Object.entries(options.query ?? {})) {
		if (value !== undefined) url.searchParams.append(name, String(value));
	}
	const headers: Record<string, string> = { ...options.headers, ...keyHeaders(options.key === undefined ? sandbox.keys.owner : options.key) };
	let body: string | undefined;
	if (options.body !== undefined) {
		headers['content-type'] = 'application/json';
		body = JSON.stringify(options.body);
	}
	return readResponse<T>(await fetch(url, { method, headers, body }));
}

/** Every row of a paged list endpoint (`{ data, meta }`), read 50 at a time. */
export async function allPages<T = any>(sandbox: Sandbox, path: string, query: CallOptions['query'] = {}, key?: string): Promise<T[]> {
	const rows: T[] = [];
	for (let page = 1; ; page++) {
		const response = await call(sandbox, 'GET', path, { query: { ...query, 'pageOptions[page]': page, 'pageOptions[take]': 50 }, key });
		expect(response.status).toBe(200);
		rows.push(...response.body.data);
		if (!response.body.meta.hasNextPage) return rows;
	}
}

async function readResponse<T = any>(response: Response): Promise<ApiResponse<T>> {
	const text = await response.text();
	const isJson = (response.headers.get('content-type') ?? '').includes('application/json');
	return { status: response.status, headers: response.headers, body: (isJson ? JSON.parse(text) : text) as T, text };
}

function keyHeaders(key: string | null): Record<string, string> {
	return key === null ? {} : { 'x-api-key': key };
}

/** The three error shapes of the spec. */
export function expectShapeA(body: unknown, code: string): void {
	expect(body).toEqual({ error: expect.any(String), message: expect.any(String), code });
}

export function expectShapeB(body: unknown, statusCode: number, error?: string): void {
	expect(body).toEqual(expect.objectContaining({ statusCode, message: expect.anything() }));
	expect(Object.keys(body as object).sort()).toEqual(expect.arrayContaining(['message', 'statusCode']));
	expect((body as { code?: unknown }).code).toBeUndefined();
	if (error !== undefined) expect((body as { error?: unknown }).error).toBe(error);
}

export function expectShapeC(body: unknown, error: string): void {
	expect(body).toEqual({ error, message: expect.any(String) });
}

export type RawPart = { name: string; value: string } | { name: string; filename?: string; content: Buffer | string; contentType?: string };

/** Builds multipart/form-data by hand, so a test controls every header (a file part without a filename, say). */
export function rawMultipart(parts: RawPart[], boundary = 'sandbox-test-boundary-7f3a'): { body: Buffer; contentType: string } {
	const chunks: Buffer[] = [];
	for (const part of parts) {
		let disposition = `form-data; name="${part.name}"`;
		let type = '';
		let content: Buffer;
		if ('value' in part) content = Buffer.from(part.value);
		else {
			if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
			type = `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
			content = typeof part.content === 'string' ? Buffer.from(part.content) : part.content;
		}
		chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), content, Buffer.from('\r\n'));
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`));
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Posts a multipart body built by rawMultipart (fetch sends it with a Content-Length). */
export async function postMultipart(sandbox: Sandbox, path: string, parts: RawPart[], key: string | null = sandbox.keys.owner): Promise<ApiResponse> {
	const { body, contentType } = rawMultipart(parts);
	return readResponse(await fetch(new URL(path, sandbox.baseUrl), { method: 'POST', body, headers: { 'content-type': contentType, ...keyHeaders(key) } }));
}

/** A FormData body, as clients build it (fetch sends it with a Content-Length). */
export function multipartForm(parts: Array<{ name: string; value: string } | { name: string; filename: string; content: Buffer | string; contentType?: string }>): FormData {
	const form = new FormData();
	for (const part of parts) {
		if ('value' in part) form.append(part.name, part.value);
		else form.append(part.name, new Blob([part.content], { type: part.contentType ?? 'application/octet-stream' }), part.filename);
	}
	return form;
}

export async function postForm(sandbox: Sandbox, path: string, form: FormData, key: string | null = sandbox.keys.owner): Promise<ApiResponse> {
	return readResponse(await fetch(new URL(path, sandbox.baseUrl), { method: 'POST', body: form, headers: keyHeaders(key) }));
}
