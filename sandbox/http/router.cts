/** Matches `METHOD /path/:param` patterns; also used by fault rules and request-log filters. */
export interface CompiledPattern {
	pattern: string;
	regex: RegExp;
	keys: string[];
}

export function compilePattern(pattern: string): CompiledPattern {
	const keys: string[] = [];
	const source = pattern
		.split('/')
		.map((segment) => {
			if (segment.startsWith(':')) {
				keys.push(segment.slice(1));
				return '([^/]+)';
			}
			return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		})
		.join('/');
	return { pattern, regex: new RegExp(`^${source}/?$`), keys };
}

export function matchPattern(compiled: CompiledPattern, pathname: string): Record<string, string> | null {
	const match = compiled.regex.exec(pathname);
	if (!match) return null;
	const params: Record<string, string> = {};
	compiled.keys.forEach((key, index) => {
		params[key] = safeDecode(match[index + 1]);
	});
	return params;
}

function safeDecode(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/** A path filter: a RegExp, a pattern with :params, or an exact pathname. */
export function pathMatcher(path: string | RegExp): (pathname: string) => boolean {
	if (path instanceof RegExp) return (pathname) => path.test(pathname);
	if (path.includes(':')) {
		const compiled = compilePattern(path);
		return (pathname) => compiled.regex.test(pathname);
	}
	return (pathname) => pathname === path;
}

export interface RouteBase {
	method: string;
	pattern: string;
}

export class Router<R extends RouteBase> {
	private readonly routes: Array<{ route: R; compiled: CompiledPattern }> = [];

	add(route: R): void {
		this.routes.push({ route, compiled: compilePattern(route.pattern) });
	}

	match(method: string, pathname: string): { route: R; params: Record<string, string> } | null {
		for (const { route, compiled } of this.routes) {
			if (route.method !== method) continue;
			const params = matchPattern(compiled, pathname);
			if (params) return { route, params };
		}
		return null;
	}

	list(): readonly R[] {
		return this.routes.map(({ route }) => route);
	}
}
