// Keeps the API key out of anything shown: error texts, echoed answers, stored files.

/** Replaces the API key wherever it might appear in text we show. */
export function redactor(apiKey: string): (text: string) => string {
	if (apiKey.length < 4) return (text) => text;
	return (text) => text.split(apiKey).join('[redacted]');
}

export function redactValue(value: unknown, redact: (text: string) => string): unknown {
	if (typeof value === 'string') return redact(value);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, redact));
	if (value !== null && typeof value === 'object') {
		const copy: Record<string, unknown> = {};
		for (const [key, entry] of Object.entries(value)) copy[key] = redactValue(entry, redact);
		return copy;
	}
	return value;
}

/**
 * Takes the key out of an answer (a debugging proxy or a careless service may echo it), so that no output or error
 * built from the answer can carry it. A file holding the key comes out altered: better than passing the key on.
 */
export function redactBody(body: Buffer, apiKey: string, redact: (text: string) => string): Buffer {
	if (apiKey.length < 4 || !body.includes(apiKey)) return body;
	return Buffer.from(redact(body.toString('utf8')), 'utf8');
}
