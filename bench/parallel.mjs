/**
 * Runs `work(index)` for indexes 0..count-1, `concurrency` at a time (each worker takes the next index when it is
 * done), as the node's transport and router do.
 */
export async function inParallel(count, concurrency, work) {
	let next = 0;
	const worker = async () => {
		while (next < count) await work(next++);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
