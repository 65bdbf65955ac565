// Path ids: each interpolated id is checked and URL-encoded, so an id can never leave its path segment.
import { UserError } from 'n8n-workflow';

// Path ids

/** Why a value cannot be used as a path id, or undefined when it can. One rule for apiPath and for field checks. */
export function pathIdProblem(value: unknown): string | undefined {
	if (value === undefined || value === null) return 'must not be empty';
	if (typeof value !== 'string' && typeof value !== 'number') return 'must be a text ID';
	const id = String(value).trim();
	if (id === '') return 'must not be empty';
	if (id.includes('/')) return "must not contain '/'";
	if (id.includes('..')) return "must not contain '..'";
	if (id === '.') return "must not be '.'";
	return undefined;
}

/** Template tag for API paths: each interpolated id is validated (pathIdProblem) and URL-encoded. */
export function apiPath(strings: TemplateStringsArray, ...ids: string[]): string {
	let path = strings[0];
	ids.forEach((id, index) => {
		const problem = pathIdProblem(id);
		if (problem !== undefined) {
			throw new UserError(`The ID "${String(id)}" in ${strings.join('{id}')} ${problem}`);
		}
		path += encodeURIComponent(String(id).trim()) + strings[index + 1];
	});
	return path;
}
