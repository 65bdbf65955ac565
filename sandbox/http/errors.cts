/**
 * The three error body shapes of the spec's Errors table:
 *   A: { error, message, code }            (order endpoints, consumption, credits)
 *   B: { statusCode, message, error? }     (NestJS style; message is an array for validation failures)
 *   C: { error, message }                  (401 elsewhere: the code is carried as the `error` value)
 */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	408: 'Request Timeout',
	409: 'Conflict',
	413: 'Payload Too Large',
	429: 'Too Many Requests',
	431: 'Request Header Fields Too Large',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
	504: 'Gateway Timeout',
};

export function statusText(status: number): string {
	return STATUS_TEXT[status] ?? 'Error';
}

/** Thrown by handlers; the server turns it into the response. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly body: Record<string, unknown>,
		readonly headers: Record<string, string> = {},
	) {
		super(typeof body.message === 'string' ? body.message : JSON.stringify(body.message));
		this.name = 'ApiError';
	}
}

export function shapeA(status: number, code: string, message: string): ApiError {
	return new ApiError(status, { error: statusText(status), message, code });
}

export function shapeB(status: number, message: string | string[], error: string | null = statusText(status)): ApiError {
	return new ApiError(status, error === null ? { statusCode: status, message } : { statusCode: status, message, error });
}

export function shapeC(status: number, error: string, message: string): ApiError {
	return new ApiError(status, { error, message });
}

export function validationError(messages: string[]): ApiError {
	return shapeB(400, messages, 'Bad Request');
}

/** NestJS's answer to an unexpected exception. */
export function internalServerError(): ApiError {
	return shapeB(500, 'Internal server error', null);
}
