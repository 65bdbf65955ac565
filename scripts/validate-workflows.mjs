#!/usr/bin/env -S node_modules/.bin/tsx
// Validates GitHub Actions workflow files with GitHub's own workflow parser (@actions/workflow-parser, from the
// Actions language services: the schema and the checks the editor extension and GitHub apply), and prints, per
// file, the errors it found and the workflow as it read it. Exit code 1 when any file has an error.
// Runs under tsx (the parser imports its schema as JSON, which plain Node refuses without an import attribute).
//
//   node_modules/.bin/tsx scripts/validate-workflows.mjs [file.yml ...]   (default: .github/workflows/*.yml)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The parser's token tree as plain JSON: mappings as objects, sequences as arrays, expressions as `${{ }}` text. */
function plain(token) {
	if (token === null || typeof token !== 'object') return token;
	if (Array.isArray(token.map)) return Object.fromEntries(token.map.map(({ Key, Value }) => [plain(Key), plain(Value)]));
	if (Array.isArray(token.seq)) return token.seq.map(plain);
	if (typeof token.expr === 'string') return `\${{ ${token.expr} }}`;
	return token;
}

export async function validateWorkflow(file) {
	const content = readFileSync(file, 'utf8');
	const parsed = parseWorkflow({ name: path.basename(file), content }, new NoOperationTraceWriter());
	const errors = parsed.context.errors.getErrors().map((error) => error.message);
	let workflow;
	if (parsed.value) {
		const template = await convertWorkflowTemplate(parsed.context, parsed.value);
		errors.push(...(template.errors ?? []).map((error) => error.Message).filter((message) => !errors.includes(message)));
		workflow = plain(JSON.parse(JSON.stringify(parsed.value)));
	}
	return { file: path.relative(REPO_ROOT, file), valid: errors.length === 0, errors, workflow };
}

const files = process.argv.slice(2).length > 0
	? process.argv.slice(2).map((file) => path.resolve(file))
	: readdirSync(path.join(REPO_ROOT, '.github', 'workflows')).filter((name) => /\.ya?ml$/.test(name)).map((name) => path.join(REPO_ROOT, '.github', 'workflows', name));
const results = [];
for (const file of files) results.push(await validateWorkflow(file));
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
if (results.some((result) => !result.valid)) process.exitCode = 1;
