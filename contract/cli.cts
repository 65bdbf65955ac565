// npm run contract -- [--api-key KEY] [--base-url URL] [--json FILE] [--figma-file KEY] [--import-job ID]
// The key comes from --api-key or OLLANG_API_KEY; it is never printed and never written to a file.
// Exit 0: every answer matches; 1: an answer differs; 2: the service is unreachable, the key refused, or bad usage.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { redactor } from '../nodes/Ollang/transport/redaction';
import { operationLines, READ_ONLY_NOTICE, summaryLine } from './format.cts';

const DEFAULT_BASE_URL = 'https://api-integration.ollang.com';

const USAGE = `usage: npm run contract -- [--api-key KEY] [--base-url URL] [--json FILE] [--figma-file KEY] [--import-job ID]
  The key may also come from OLLANG_API_KEY, the base URL from OLLANG_BASE_URL (default ${DEFAULT_BASE_URL}).
  ${READ_ONLY_NOTICE}`;

async function main(): Promise<number> {
	let values: ReturnType<typeof parse>;
	try {
		values = parse();
	} catch (error) {
		console.error(`${(error as Error).message}\n${USAGE}`);
		return 2;
	}
	if (values.help) {
		console.log(USAGE);
		return 0;
	}
	const apiKey = values['api-key'] ?? process.env.OLLANG_API_KEY ?? '';
	const redact = redactor(apiKey);
	const baseUrl = (values['base-url'] ?? process.env.OLLANG_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
	if (apiKey.trim() === '') {
		console.error(`No API key: give --api-key KEY or set OLLANG_API_KEY.\n${USAGE}`);
		return 2;
	}
	console.log(`Ollang API contract check of ${baseUrl}`);
	console.log(READ_ONLY_NOTICE);
	try {
		// Loaded only now: it brings n8n-core, seconds of start-up a usage error need not wait for.
		const { runContractCheck } = require('./check.cts') as typeof import('./check.cts');
		const report = await runContractCheck({
			baseUrl,
			apiKey,
			figmaFileKey: values['figma-file'],
			importJobId: values['import-job'],
			onOperation: (operation) => console.log(redact(operationLines(operation).join('\n'))),
		});
		if (report.fatal !== undefined) console.log(redact(report.fatal));
		console.log(redact(summaryLine(report)));
		if (values.json !== undefined) writeFileSync(values.json, `${redact(JSON.stringify(report, null, 2))}\n`);
		return report.exitCode;
	} catch (error) {
		// A clear line, no stack trace: a bad base URL, or a failure of the check itself.
		console.error(redact(`Contract check failed: ${error instanceof Error ? error.message : String(error)}`));
		return 2;
	}
}

function parse() {
	return parseArgs({
		args: process.argv.slice(2),
		options: {
			'api-key': { type: 'string' },
			'base-url': { type: 'string' },
			json: { type: 'string' },
			'figma-file': { type: 'string' },
			'import-job': { type: 'string' },
			help: { type: 'boolean' },
		},
		strict: true,
		allowPositionals: false,
	}).values;
}

main().then(
	(code) => process.exit(code),
	() => process.exit(2),
);
