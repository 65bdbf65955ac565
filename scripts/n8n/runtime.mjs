#!/usr/bin/env node
// The real n8n that end-to-end tests and `npm start` run, and the one place callers import it from. By concern:
//   install.mjs   the pinned Node 24 + n8n in the cache (versions, paths, ensureRuntime)
//   package.mjs   this package built, packed and installed into a user folder
//   commands.mjs  n8n's environment and CLI commands (import, publish, execute)
//   server.mjs    `n8n start`, `n8n worker` and `n8n webhook` as processes
//   rest.mjs      n8n's REST API (sign-in, workflows, executions, community packages)
//
// CLI: node scripts/n8n/runtime.mjs <command>: see CLI_USAGE below.
import { readFileSync, realpathSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { importCredentials, importWorkflows, executeWorkflow, publishWorkflow } from './commands.mjs';
import { CACHED_TOOLS, LOG_PREFIX, cacheRoot, ensureCachedTool, ensureRuntime, runtimePaths } from './install.mjs';
import { packAndInstall } from './package.mjs';
import { log } from './process.mjs';
import { startN8n } from './server.mjs';

export { CACHED_TOOLS, DEFAULT_N8N_VERSION, N8N_VERSION, N8N_VERSIONS, NODE_VERSION, REPO_ROOT, cacheRoot, ensureCachedTool, ensureRuntime, runtimePaths } from './install.mjs';
export {
	LOCAL_OWNER,
	N8N_ENCRYPTION_KEY,
	diedWhileExiting,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	n8nEnv,
	n8nFilesDir,
	publishWorkflow,
	runN8n,
} from './commands.mjs';
export { buildPackageTarball, packAndInstall, packageSourceHash } from './package.mjs';
export { startN8n, startN8nWebhook, startN8nWorker } from './server.mjs';
export {
	activateWorkflow,
	callProductionWebhook,
	communityPackages,
	createWorkflow,
	deleteWorkflow,
	listLoadedNodeTypes,
	n8nFetch,
	n8nRequest,
	readExecutionSummaries,
	readExecutions,
	readWorkflowStaticData,
	restRequest,
	signIn,
} from './rest.mjs';

const CLI_USAGE = `usage: node scripts/n8n/runtime.mjs <command>
  install                                   install the pinned Node 24 + n8n into the cache (idempotent)
  install-tools                             install the suites' cached tools (verdaccio) into the cache (idempotent)
  paths                                     print where the cache and runtime are
  pack-install <userFolder> [--force]       build, pack and install this package into <userFolder>/.n8n/nodes
  import-credentials <userFolder> <file>    n8n import:credentials (an array of { id, name, type, data })
  import-workflows <userFolder> <files...>  n8n import:workflow
  publish <userFolder> <workflowId>         n8n publish:workflow
  execute <userFolder> <workflowId>         n8n execute --rawOutput; prints the run as JSON
  start <userFolder> [--port 5678]          n8n start; prints N8N_READY {"url":...} and runs until Ctrl-C`;

async function main(argv) {
	const { values, positionals } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: { force: { type: 'boolean', default: false }, port: { type: 'string', default: '5678' } },
	});
	const [command, ...rest] = positionals;
	const userFolder = rest[0] ? path.resolve(rest[0]) : undefined;
	const printJson = (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
	const needs = (count) => {
		if (rest.length < count) throw new Error(CLI_USAGE);
	};
	switch (command) {
		case 'install': {
			const started = Date.now();
			const runtime = await ensureRuntime();
			log(LOG_PREFIX, `node: ${runtime.nodeBin}`);
			log(LOG_PREFIX, `n8n:  ${runtime.n8nBin}`);
			log(LOG_PREFIX, `ensureRuntime took ${Date.now() - started} ms`);
			return;
		}
		case 'install-tools':
			for (const tool of Object.values(CACHED_TOOLS)) log(LOG_PREFIX, `${tool.name}: ${await ensureCachedTool(tool.name, tool.version, { overrides: tool.overrides })}`);
			return;
		case 'paths':
			return printJson({ cacheRoot: cacheRoot(), ...runtimePaths() });
		case 'pack-install':
			needs(1);
			return printJson(await packAndInstall(userFolder, { force: values.force }));
		case 'import-credentials':
			needs(2);
			return await importCredentials(userFolder, JSON.parse(readFileSync(rest[1], 'utf8')));
		case 'import-workflows':
			needs(2);
			return printJson(await importWorkflows(userFolder, rest.slice(1).map((file) => path.resolve(file))));
		case 'publish':
			needs(2);
			return await publishWorkflow(userFolder, rest[1]);
		case 'execute':
			needs(2);
			return printJson(await executeWorkflow(userFolder, rest[1]));
		case 'start': {
			needs(1);
			const n8n = await startN8n(userFolder, { port: Number(values.port), onLine: (line) => process.stderr.write(`n8n | ${line}\n`) });
			process.stdout.write(`N8N_READY ${JSON.stringify({ url: n8n.url, owner: n8n.owner })}\n`);
			for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void n8n.stop());
			n8n.child.once('exit', (code) => {
				process.exitCode = code ?? 0;
			});
			return;
		}
		default:
			throw new Error(CLI_USAGE);
	}
}

if (process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url) {
	// Dying of a signal would skip the exit hook that stops our children (an npm install writing into the cache);
	// exiting does not. `start` installs its own handlers to stop n8n gracefully first.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.on(signal, () => {
			if (process.listenerCount(signal) === 1) process.exit(128 + osConstants.signals[signal]);
		});
	}
	main(process.argv.slice(2)).catch((error) => {
		log(LOG_PREFIX, error.message ?? String(error));
		process.exitCode = 1;
	});
}
