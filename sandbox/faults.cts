import type { Rng } from './core/rng.cts';
import { pathMatcher } from './http/router.cts';

/** Faults on demand, for reliability tests (see docs/ARCHITECTURE.md). */
export interface FaultRule {
	/** Default: any method. */
	method?: string;
	/** A RegExp, a pattern with :params (/integration/orders/:orderId), or an exact pathname; default: every API path. */
	path?: string | RegExp;
	kind: 'status' | 'drop' | 'delay';
	/** For 'status': 429, 500, 502, 503, 504 (any 4xx/5xx is accepted). */
	status?: number;
	/** Sent as Retry-After with a 'status' fault. */
	retryAfterSeconds?: number;
	/** For 'delay'. */
	delayMs?: number;
	/** 'before' (default): instead of the handler. 'after': the handler runs and changes state, then the fault replaces its response. */
	when?: 'before' | 'after';
	/** Fires this many times, then retires. Default: unlimited. */
	times?: number;
	/** Lets this many matching requests through first (e.g. 5: the sixth item of a run meets the fault). Default 0. */
	skip?: number;
	/** 0..1, drawn from the seeded RNG. Default 1. */
	probability?: number;
}

export interface ActiveFault {
	id: number;
	rule: FaultRule;
	fired: number;
	/** Matching requests let through so far (up to `skip`). */
	skipped: number;
	matches: (method: string, pathname: string) => boolean;
}

export function validateFaultRule(rule: FaultRule): void {
	const problems: string[] = [];
	if (!['status', 'drop', 'delay'].includes(rule.kind)) problems.push(`kind must be one of status, drop, delay`);
	if (rule.kind === 'status' && !(Number.isInteger(rule.status) && (rule.status as number) >= 400 && (rule.status as number) <= 599)) {
		problems.push('status must be an HTTP error status (400-599) for a status fault');
	}
	if (rule.kind === 'delay' && !(typeof rule.delayMs === 'number' && rule.delayMs >= 0)) problems.push('delayMs must be a number >= 0 for a delay fault');
	if (rule.when !== undefined && rule.when !== 'before' && rule.when !== 'after') problems.push("when must be 'before' or 'after'");
	if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 1)) problems.push('times must be an integer >= 1');
	if (rule.skip !== undefined && !(Number.isInteger(rule.skip) && rule.skip >= 0)) problems.push('skip must be an integer >= 0');
	if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) problems.push('probability must be between 0 and 1');
	if (rule.retryAfterSeconds !== undefined && !(rule.retryAfterSeconds >= 0)) problems.push('retryAfterSeconds must be >= 0');
	if (problems.length > 0) throw new TypeError(`Invalid fault rule: ${problems.join('; ')}`);
}

export class FaultInjector {
	private readonly active: ActiveFault[] = [];
	private nextId = 1;

	constructor(private readonly rng: Rng) {}

	add(rule: FaultRule): number {
		validateFaultRule(rule);
		const method = rule.method?.toUpperCase();
		const pathOk = rule.path === undefined ? () => true : pathMatcher(rule.path);
		const id = this.nextId++;
		this.active.push({ id, rule: { ...rule }, fired: 0, skipped: 0, matches: (m, p) => (method === undefined || method === m) && pathOk(p) });
		return id;
	}

	clear(): number {
		const count = this.active.length;
		this.active.length = 0;
		return count;
	}

	list(): ReadonlyArray<{ id: number; rule: FaultRule; fired: number }> {
		return this.active.map(({ id, rule, fired }) => ({ id, rule, fired }));
	}

	/**
	 * The faults that fire for this request at this moment: any delays, then at most one status or drop.
	 * Each fired rule counts down its `times` and retires at zero.
	 */
	take(when: 'before' | 'after', method: string, pathname: string): FaultRule[] {
		const fired: FaultRule[] = [];
		for (const fault of [...this.active]) {
			if ((fault.rule.when ?? 'before') !== when || !fault.matches(method, pathname)) continue;
			const terminal = fault.rule.kind !== 'delay';
			if (terminal && fired.some((rule) => rule.kind !== 'delay')) continue;
			if (fault.skipped < (fault.rule.skip ?? 0)) {
				fault.skipped += 1;
				continue;
			}
			if (fault.rule.probability !== undefined && !this.rng.chance(fault.rule.probability)) continue;
			fault.fired += 1;
			if (fault.rule.times !== undefined && fault.fired >= fault.rule.times) this.active.splice(this.active.indexOf(fault), 1);
			fired.push(fault.rule);
		}
		return fired;
	}
}
