// Shared by the reliability and security suites: the figures each file prints, what a failed action says about
// whether the service acted, a comparable form of a run's output, and a gateway in front of the sandbox that
// spoils chosen answers (the answers a broken network or proxy gives and the sandbox never does).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { readBinary } from '../harness/engine.cts';
import type { RunNodeResult } from '../harness/engine.cts';
import { failure, startStub } from '../node/setup.cts';
import type { Stub } from '../node/setup.cts';
import { zipEntry } from '../sandbox/zip.cts';

/** Figures of one suite, printed after its tests (jest shows console output per file). */
export class Figures {
	private readonly rows = new Map<string, string | number>();
	// Taken now: a suite may capture the console while it runs (the key-leak scan does).
	private readonly print = console.log.bind(console);

	constructor(private readonly title: string) {
		afterAll(() => {
			const lines = [...this.rows].map(([name, value]) => `  ${name}: ${value}`);
			this.print(`${this.title}\n${lines.join('\n')}`);
		});
	}

	set(name: string, value: string | number): void {
		this.rows.set(name, value);
	}

	add(name: string, amount = 1): void {
		this.rows.set(name, Number(this.rows.get(name) ?? 0) + amount);
	}

	get(name: string): number {
		return Number(this.rows.get(name) ?? 0);
	}
}

/** What an error says about whether the service acted on the request. */
export type Claim = 'notApplied' | 'mayHaveApplied' | 'unclear';

export function claimOf(description: string): Claim {
	if (/did not act on this request/.test(description)) return 'notApplied';
	if (/may have been applied; check before retrying/.test(description)) return 'mayHaveApplied';
	return 'unclear';
}

function sha256(data: Buffer): string {
	return createHash('sha256').update(data).digest('hex');
}

const XLSX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * What a file holds. A zip stamps each entry with the wall time of writing, so two exports of the same sheet differ
 * in bytes: an XLSX is compared by its sheet.
 */
function contentDigest(data: Buffer, mimeType: string): string {
	return sha256(mimeType === XLSX_MIME_TYPE ? zipEntry(data, 'xl/worksheets/sheet1.xml') : data);
}

/** The output of a run as text that two runs can be compared by: json, pairing, and the bytes of any binary. */
export async function comparableOutput(result: RunNodeResult): Promise<string> {
	const items = await Promise.all(
		result.items.map(async (item: INodeExecutionData) => {
			const binary: IDataObject = {};
			for (const [name, data] of Object.entries(item.binary ?? {})) {
				binary[name] = { fileName: data.fileName, mimeType: data.mimeType, content: contentDigest(await readBinary(item, name), data.mimeType) };
			}
			// With a file attached, fileSize is the file's size: a zip's varies with its timestamps, its content is compared.
			const { fileSize, ...json } = item.json;
			return { json: item.binary ? json : { fileSize, ...json }, pairedItem: item.pairedItem, binary };
		}),
	);
	return JSON.stringify(items);
}

export type ErrorFields = ReturnType<typeof failure>;

/** The node's error as n8n stored it, or undefined for a run that succeeded. */
export function errorOf(result: RunNodeResult): ErrorFields | undefined {
	return result.error ? failure(result) : undefined;
}

/** How the gateway answers one request instead of passing it on; `undefined` passes it on. */
export type Spoil = (res: ServerResponse, req: IncomingMessage) => void;

/**
 * A gateway in front of the sandbox: request n (0-based) is answered by `spoil(n, request)` when that gives a
 * Spoil, else passed on to the sandbox and its answer returned as it came.
 */
export async function startGateway(
	targetBaseUrl: string,
	spoil: (index: number, req: IncomingMessage) => Spoil | undefined,
): Promise<Stub> {
	let index = 0;
	return await startStub((req, res, body) => {
		const answer = spoil(index++, req);
		if (answer) answer(res, req);
		else forward(targetBaseUrl, req, body, res).catch(() => res.destroy());
	});
}

const FORWARDED_REQUEST_HEADERS = ['x-api-key', 'content-type', 'accept'];
const FORWARDED_ANSWER_HEADERS = ['content-type', 'content-disposition', 'retry-after', 'location'];

async function forward(target: string, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
	const headers: Record<string, string> = {};
	for (const name of FORWARDED_REQUEST_HEADERS) {
		const value = req.headers[name];
		if (typeof value === 'string') headers[name] = value;
	}
	const answer = await fetch(`${target}${req.url ?? '/'}`, {
		method: req.method,
		headers,
		body: body.length > 0 ? body : undefined,
		redirect: 'manual',
	});
	const bytes = Buffer.from(await answer.arrayBuffer());
	const out: Record<string, string> = { 'content-length': String(bytes.length) };
	for (const name of FORWARDED_ANSWER_HEADERS) {
		const value = answer.headers.get(name);
		if (value !== null) out[name] = value;
	}
	res.writeHead(answer.status, out);
	res.end(bytes);
}

/** Spoils: answers a broken service or proxy gives. */
export const spoils = {
	/** A complete answer with this status, content type and body. */
	answer(status: number, contentType: string, body: string | Buffer): Spoil {
		return (res) => {
			const bytes = typeof body === 'string' ? Buffer.from(body) : body;
			res.writeHead(status, { 'content-type': contentType, 'content-length': String(bytes.length) });
			res.end(bytes);
		};
	},
	json(status: number, body: unknown): Spoil {
		return spoils.answer(status, 'application/json', JSON.stringify(body));
	},
	/** Headers promise more bytes than are sent, then the connection closes. */
	cutShort(body: string): Spoil {
		return (res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length * 2) });
			res.write(body);
			setImmediate(() => res.socket?.destroy());
		};
	},
};
