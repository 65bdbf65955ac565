import type { IncomingMessage } from 'node:http';
import { consumeBody } from './body.cts';
import { shapeB, type ApiError } from './errors.cts';

/**
 * A streaming multipart/form-data parser. File contents are counted, not kept (the sandbox stores only
 * metadata), so memory stays flat whatever the upload size, and a size limit is enforced as soon as the
 * byte count passes it.
 */
export interface MultipartFile {
	field: string;
	filename: string | null;
	contentType: string | null;
	size: number;
}

export interface MultipartForm {
	fields: Record<string, string>;
	files: MultipartFile[];
}

export interface MultipartLimits {
	maxFileBytes: number;
	tooLarge: () => ApiError;
}

const MAX_FIELD_BYTES = 1024 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

export function multipartBoundary(contentType: string | undefined): string | null {
	if (!contentType || !/^multipart\/form-data/i.test(contentType)) return null;
	const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
	return match ? (match[1] ?? match[2]) : null;
}

export async function parseMultipart(req: IncomingMessage, limits: MultipartLimits): Promise<MultipartForm> {
	const boundary = multipartBoundary(req.headers['content-type']);
	if (!boundary) throw shapeB(400, 'Multipart: Boundary not found', 'Bad Request');
	const parser = new MultipartParser(boundary, limits);
	await consumeBody(req, (chunk) => parser.feed(chunk));
	return parser.finish();
}

interface OpenPart {
	name: string;
	filename: string | null;
	contentType: string | null;
	size: number;
	chunks: Buffer[] | null;
}

type ParserState = 'preamble' | 'afterDelimiter' | 'headers' | 'body' | 'done';

class MultipartParser {
	private readonly delimiter: Buffer;
	// The stream is read as if it began with CRLF, so the first boundary line matches the same delimiter.
	private buffer: Buffer = CRLF;
	private state: ParserState = 'preamble';
	private part: OpenPart | null = null;
	private readonly form: MultipartForm = { fields: {}, files: [] };

	constructor(
		boundary: string,
		private readonly limits: MultipartLimits,
	) {
		this.delimiter = Buffer.from(`\r\n--${boundary}`);
	}

	feed(chunk: Buffer): void {
		this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
		while (this.step()) {
			// each step consumes what it can; false means more bytes are needed
		}
	}

	finish(): MultipartForm {
		if (this.state !== 'done') throw shapeB(400, 'Multipart: Unexpected end of form', 'Bad Request');
		return this.form;
	}

	private step(): boolean {
		switch (this.state) {
			case 'preamble': {
				const index = this.buffer.indexOf(this.delimiter);
				if (index < 0) {
					this.keepTail();
					return false;
				}
				this.buffer = this.buffer.subarray(index + this.delimiter.length);
				this.state = 'afterDelimiter';
				return true;
			}
			case 'afterDelimiter': {
				if (this.buffer.length < 2) return false;
				if (this.buffer[0] === 0x2d && this.buffer[1] === 0x2d) {
					this.state = 'done';
					this.buffer = Buffer.alloc(0);
					return false;
				}
				const lineEnd = this.buffer.indexOf(CRLF);
				if (lineEnd < 0) return false;
				// Transport padding (spaces or tabs) may follow a boundary before its CRLF.
				if (this.buffer.subarray(0, lineEnd).toString('latin1').trim() !== '') {
					throw shapeB(400, 'Multipart: Malformed part boundary', 'Bad Request');
				}
				this.buffer = this.buffer.subarray(lineEnd + 2);
				this.state = 'headers';
				return true;
			}
			case 'headers': {
				const index = this.buffer.indexOf(HEADER_END);
				if (index < 0) {
					if (this.buffer.length > MAX_HEADER_BYTES) throw shapeB(400, 'Multipart: Part headers too large', 'Bad Request');
					return false;
				}
				this.part = openPart(this.buffer.subarray(0, index).toString('utf8'));
				this.buffer = this.buffer.subarray(index + HEADER_END.length);
				this.state = 'body';
				return true;
			}
			case 'body': {
				const index = this.buffer.indexOf(this.delimiter);
				if (index >= 0) {
					this.take(this.buffer.subarray(0, index));
					this.closePart();
					this.buffer = this.buffer.subarray(index + this.delimiter.length);
					this.state = 'afterDelimiter';
					return true;
				}
				const safe = this.buffer.length - (this.delimiter.length - 1);
				if (safe > 0) {
					this.take(this.buffer.subarray(0, safe));
					this.buffer = this.buffer.subarray(safe);
				}
				return false;
			}
			case 'done':
				this.buffer = Buffer.alloc(0);
				return false;
		}
	}

	private keepTail(): void {
		const keep = this.delimiter.length - 1;
		if (this.buffer.length > keep) this.buffer = this.buffer.subarray(this.buffer.length - keep);
	}

	private take(bytes: Buffer): void {
		const part = this.part as OpenPart;
		part.size += bytes.length;
		if (part.chunks) {
			if (part.size > MAX_FIELD_BYTES) throw shapeB(413, `Field ${part.name} is too long`, 'Payload Too Large');
			// Copy: the slice points into a buffer that is reused for the next chunk.
			part.chunks.push(Buffer.from(bytes));
		} else if (part.size > this.limits.maxFileBytes) {
			throw this.limits.tooLarge();
		}
	}

	private closePart(): void {
		const part = this.part as OpenPart;
		if (part.chunks) this.form.fields[part.name] = Buffer.concat(part.chunks).toString('utf8');
		else this.form.files.push({ field: part.name, filename: part.filename, contentType: part.contentType, size: part.size });
		this.part = null;
	}
}

function openPart(headerBlock: string): OpenPart {
	let disposition = '';
	let contentType: string | null = null;
	for (const line of headerBlock.split('\r\n')) {
		const colon = line.indexOf(':');
		if (colon < 0) continue;
		const name = line.slice(0, colon).trim().toLowerCase();
		const value = line.slice(colon + 1).trim();
		if (name === 'content-disposition') disposition = value;
		else if (name === 'content-type') contentType = value;
	}
	const name = dispositionParam(disposition, 'name');
	if (!/^form-data/i.test(disposition) || name === null) {
		throw shapeB(400, 'Multipart: Part without a form-data name', 'Bad Request');
	}
	const filename = dispositionFilename(disposition);
	// A part is a file when its disposition carries a filename parameter (even an empty one).
	const isFile = filename !== null || /;\s*filename\*?=/i.test(disposition);
	return { name, filename, contentType, size: 0, chunks: isFile ? null : [] };
}

function dispositionParam(disposition: string, param: string): string | null {
	const match = new RegExp(`;\\s*${param}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${param}=([^;\\s]+)`, 'i').exec(disposition);
	if (!match) return null;
	return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

function dispositionFilename(disposition: string): string | null {
	const extended = /;\s*filename\*=(?:UTF-8|utf-8)''([^;\s]+)/.exec(disposition);
	if (extended) {
		try {
			return decodeURIComponent(extended[1]);
		} catch {
			return extended[1];
		}
	}
	return dispositionParam(disposition, 'filename');
}
