// Bounded concurrency that keeps input order and can stop starting tasks after a failure.

/** How one task of settleConcurrent ended. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/**
 * Runs `task` over inputs with at most `concurrency` at once, starting them in input order, and waits for every
 * task it started; results keep the input order. With `stopAfterFailure`, no task starts once one has failed:
 * those inputs have no result (undefined), and every input before the failed one has been started.
 */
export async function settleConcurrent<I, O>(
	inputs: I[],
	concurrency: number,
	task: (input: I, index: number) => Promise<O>,
	options: { stopAfterFailure: boolean },
): Promise<Array<Settled<O> | undefined>> {
	const results = new Array<Settled<O> | undefined>(inputs.length).fill(undefined);
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (!(failed && options.stopAfterFailure) && next < inputs.length) {
			const index = next++;
			try {
				results[index] = { ok: true, value: await task(inputs[index], index) };
			} catch (error) {
				failed = true;
				results[index] = { ok: false, error };
			}
		}
	};
	const workers = Array.from({ length: Math.max(1, Math.min(concurrency, inputs.length)) }, worker);
	await Promise.all(workers);
	return results;
}

/**
 * Runs fn over inputs with at most `concurrency` at once; results keep the input order. After a failure nothing
 * new starts, the calls under way finish, and the first failure in input order is thrown.
 */
export async function mapConcurrent<I, O>(
	inputs: I[],
	concurrency: number,
	fn: (input: I, index: number) => Promise<O>,
): Promise<O[]> {
	const settled = await settleConcurrent(inputs, concurrency, fn, {
		stopAfterFailure: true,
	});
	const values: O[] = [];
	// Started inputs are a prefix of the list, so the first failure comes before any input left unstarted.
	for (const outcome of settled) {
		if (outcome === undefined) break;
		if (!outcome.ok) throw outcome.error;
		values.push(outcome.value);
	}
	return values;
}
