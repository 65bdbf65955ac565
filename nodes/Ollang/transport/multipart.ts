import { randomString } from 'n8n-workflow';

export type MultipartPart =
	| { name: string; value: string }
	| { name: string; data: Buffer; fileName: string; contentType?: string };

const CRLF = '\r\n';

/** A text field of a multipart body. */
export function textPart(name: string, value: string): MultipartPart {
	return { name, value };
}

/** A file field of a multipart body. */
export function filePart(name: string, data: Buffer, fileName: string, contentType?: string): MultipartPart {
	return { name, data, fileName, contentType };
}

/** Quoted-string content for a Content-Disposition parameter: no raw quotes or line breaks. */
function quoteParameter(value: string): string {
	return value.replace(/"/g, '%22').replace(/[\r\n]/g, ' ');
}

function pickBoundary(parts: MultipartPart[]): string {
	for (;;) {
		const boundary = `----OllangN8nBoundary${randomString(24)}`;
		const clash = parts.some((part) =>
			'data' in part ? part.data.includes(boundary) : part.value.includes(boundary),
		);
		if (!clash) return boundary;
	}
}

/**
 * Builds a multipart/form-data body in memory. The service needs a Content-Length (it answers 500 to
 * chunked multipart), which a Buffer gives for free.
 */
export function buildMultipartBody(parts: MultipartPart[]): { body: Buffer; contentType: string } {
	const boundary = pickBoundary(parts);
	const chunks: Buffer[] = [];
	for (const part of parts) {
		let head = `--${boundary}${CRLF}Content-Disposition: form-data; name="${quoteParameter(part.name)}"`;
		if ('data' in part) {
			head += `; filename="${quoteParameter(part.fileName)}"${CRLF}`;
			head += `Content-Type: ${part.contentType ?? 'application/octet-stream'}${CRLF}${CRLF}`;
			chunks.push(Buffer.from(head, 'utf8'), part.data, Buffer.from(CRLF, 'utf8'));
		} else {
			head += `${CRLF}${CRLF}`;
			chunks.push(Buffer.from(head + part.value + CRLF, 'utf8'));
		}
	}
	chunks.push(Buffer.from(`--${boundary}--${CRLF}`, 'utf8'));
	return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
