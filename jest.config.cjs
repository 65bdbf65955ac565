// Tests are TypeScript in .cts files: n8n's strict lint (one-line config, applied to every *.ts) does not
// read .cts, so tests and the sandbox may use node:http, process and timers. See CONTRIBUTING.md "Lint and tests".
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.cts'],
	moduleFileExtensions: ['ts', 'cts', 'js', 'cjs', 'json'],
	transform: {
		'^.+\\.c?ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.dev.json' }],
	},
	// The waits for other processes follow the harness's store, not n8n's database (test/harness/waits.cts).
	moduleNameMapper: { '^(\\./|.*/shared/)waits$': '<rootDir>/test/harness/waits.cts' },
	testTimeout: 60000,
	testSequencer: '<rootDir>/test/harness/sequencer.cjs',
};
