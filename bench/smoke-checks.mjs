// The smoke's checks of one scenario: each counted, each failure named with the scenario's prefix.
export function smokeChecks(prefix) {
	const problems = [];
	let checks = 0;
	return {
		check(ok, problem) {
			checks++;
			if (!ok) problems.push(`${prefix}: ${problem}`);
		},
		result: () => ({ checks, problems }),
	};
}
