#!/usr/bin/env node
// `npm run screenshots`: pictures of the example workflows and of the Ollang nodes' panels in the real n8n editor
// (Order > Create's project list and language dropdown opened among them), for the README (docs/images/*.png). Starts its own sandbox and n8n (a throwaway user folder with the packed package,
// the sandbox credentials and the examples), signs in through the form in headless chromium, and takes each picture
// at 1440x900. Run it again after changing the nodes or the examples. `npm test` runs it whole into a temporary folder
// (test/e2e/screenshots.test.mts: every picture written, each a complete PNG at that size).
//
//   node scripts/n8n/screenshots.mjs [--out-dir docs/images]
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
	ensureChromium,
	hideNotifications,
	hideTransientUi,
	mouseClick,
	signInThroughForm,
	startChromium,
	visibleElements,
	visibleTexts,
} from './chromium.mjs';
import { freePort, log } from './process.mjs';
import { LOCAL_OWNER, REPO_ROOT, importCredentials, importWorkflows, packAndInstall, startN8n } from './runtime.mjs';
import { sandboxCredentials, startSandboxProcess } from './sandbox.mjs';

const LOG_PREFIX = 'screenshots';
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

const { values: flags } = parseArgs({ options: { 'out-dir': { type: 'string', default: path.join(REPO_ROOT, 'docs', 'images') } } });
const outDir = path.resolve(flags['out-dir']);

function readExamples() {
	return readdirSync(EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json'))
		.map((name) => ({ file: path.join(EXAMPLES_DIR, name), workflow: JSON.parse(readFileSync(path.join(EXAMPLES_DIR, name), 'utf8')) }));
}

function nodeOf(workflow, type) {
	const node = workflow.nodes.find((candidate) => candidate.type === type);
	if (!node) throw new Error(`example "${workflow.name}" has no ${type} node`);
	return node;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A picture's path for the log: from the repository's root when it is inside it, else as it is. */
function shown(file) {
	const relative = path.relative(REPO_ROOT, file);
	return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

async function shootWorkflow(page, editorUrl, workflow, file) {
	// Sticky notes are drawn, but not as canvas nodes.
	const nodeCount = workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote').length;
	await page.navigate(`${editorUrl}/workflow/${workflow.id}`);
	await page.waitFor(`document.querySelectorAll('[data-test-id="canvas-node"]').length >= ${nodeCount}`, `the ${nodeCount} nodes of "${workflow.name}"`);
	await sleep(1500);
	await hideTransientUi(page);
	await page.click('[data-test-id="zoom-to-fit"]', 'zoom to fit');
	await sleep(1000);
	await page.screenshot(file);
	log(LOG_PREFIX, `${shown(file)}: "${workflow.name}"`);
}

/**
 * Opens a node's panel (NDV), runs the node from it (Execute step / Fetch Test Event), waits for its output and
 * shows it in `displayMode` (schema, table or json).
 */
async function shootNodePanel(page, editorUrl, workflow, node, displayMode, file) {
	const inPanel = (selector) => `[data-test-id="ndv"] ${selector}`;
	const runButton = inPanel('[data-test-id="node-execute-button"]');
	await page.navigate(`${editorUrl}/workflow/${workflow.id}/${node.id}`);
	await page.waitFor(`!!document.querySelector('${runButton}')`, `the panel of "${node.name}"`);
	await sleep(1000);
	await page.click(runButton, `the run button of "${node.name}"`);
	const outputPanel = inPanel('[data-test-id="output-panel"]');
	const modeButton = `${outputPanel} [data-test-id="radio-button-${displayMode}"]`;
	// The panel says how many items the node output once it has run.
	await page.waitFor(`/\\b\\d+ items?\\b/.test(document.querySelector('${outputPanel}')?.innerText ?? '')`, `the output of "${node.name}"`);
	await page.click(modeButton, `the ${displayMode} view of the output`);
	await sleep(1500);
	await hideTransientUi(page);
	await page.screenshot(file);
	log(LOG_PREFIX, `${shown(file)}: the panel of "${node.name}"`);
}

/** The Ollang node's newest version, from the build packAndInstall made. */
function ollangNodeVersion() {
	const { Ollang } = createRequire(import.meta.url)(path.join(REPO_ROOT, 'dist', 'nodes', 'Ollang', 'Ollang.node.js'));
	const { version, defaultVersion } = new Ollang().description;
	return defaultVersion ?? (Array.isArray(version) ? Math.max(...version) : version);
}

/** A workflow of one Order > Create node with nothing picked yet: for the pictures of its project list and language dropdown. */
function pickingWorkflow(credential) {
	return {
		id: 'OllangPickPanel01',
		name: 'Pick a project and a language',
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {},
		nodes: [
			{
				id: '5e5e0000-0000-4000-8000-0000000000aa',
				name: 'Create order',
				type: 'n8n-nodes-ollang.ollang',
				typeVersion: ollangNodeVersion(),
				position: [0, 0],
				parameters: { resource: 'order', operation: 'create', orderType: 'document', level: 0 },
				credentials: { ollangApi: { id: credential.id, name: credential.name } },
			},
		],
	};
}

/** Waits until the visible elements matching `selector` are at least `count`; returns their texts. */
async function waitForTexts(page, selector, count, what) {
	await page.waitFor(`${visibleElements(selector)}.length >= ${count}`, what);
	await sleep(800);
	return await visibleTexts(page, selector);
}

/**
 * Order > Create's panel: its project list opened (the account's projects, newest first, with the search above), then
 * a project picked and the target language dropdown opened (the API's languages).
 */
async function shootPickers(page, editorUrl, workflow, projectFile, languageFile) {
	const node = workflow.nodes[0];
	const projectInput = '[data-test-id="ndv"] [data-test-id="parameter-input-projectId"] [data-test-id="rlc-input"]';
	await page.navigate(`${editorUrl}/workflow/${workflow.id}/${node.id}`);
	await page.waitFor(`${visibleElements(projectInput)}.length > 0`, `the Project field of "${node.name}"`);
	await sleep(1000);
	await hideNotifications(page);
	await mouseClick(page, projectInput);
	const projects = await waitForTexts(page, '[data-test-id="rlc-item"]', 2, 'the project list');
	await page.screenshot(projectFile);
	log(LOG_PREFIX, `${shown(projectFile)}: the project list (${projects.length} projects)`);
	await mouseClick(page, '[data-test-id="rlc-item"]', 0);
	await sleep(800);
	await mouseClick(page, '[data-test-id="ndv"] [data-test-id="parameter-input-code"] input');
	const languages = await waitForTexts(page, '[data-test-id="parameter-input-item"]', 2, 'the language dropdown');
	await page.screenshot(languageFile);
	log(LOG_PREFIX, `${shown(languageFile)}: the language dropdown (${languages.length} languages)`);
}

async function main() {
	mkdirSync(outDir, { recursive: true });
	await ensureChromium();
	const examples = readExamples();
	const userFolder = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-screenshots-'));
	const stops = [];
	try {
		await packAndInstall(userFolder);
		// The demo data, with the clock at the real time now so the examples' date windows hold data.
		const sandbox = await startSandboxProcess(['--volume', 'demo', '--start-at', new Date().toISOString()]);
		stops.push(sandbox.stop);
		const credentials = sandboxCredentials(sandbox.info);
		await importCredentials(userFolder, credentials);
		const picking = pickingWorkflow(credentials[0]);
		const pickingFile = path.join(userFolder, 'picking-workflow.json');
		writeFileSync(pickingFile, JSON.stringify(picking));
		await importWorkflows(userFolder, [...examples.map((example) => example.file), pickingFile]);
		const n8n = await startN8n(userFolder, { port: await freePort() });
		stops.push(n8n.stop);
		const chromium = await startChromium();
		stops.push(chromium.stop);
		const { page } = chromium;
		await signInThroughForm(page, n8n.url, LOCAL_OWNER);

		for (const { file, workflow } of examples) {
			await shootWorkflow(page, n8n.url, workflow, path.join(outDir, `example-${path.basename(file, '.json')}.png`));
		}
		const byFile = (name) => examples.find((example) => path.basename(example.file) === name).workflow;
		const report = byFile('scheduled-consumption-report.json');
		await shootNodePanel(page, n8n.url, report, nodeOf(report, 'n8n-nodes-ollang.ollang'), 'schema', path.join(outDir, 'ollang-node-panel.png'));
		const review = byFile('human-review-on-ai-delivery.json');
		await shootNodePanel(page, n8n.url, review, nodeOf(review, 'n8n-nodes-ollang.ollangTrigger'), 'json', path.join(outDir, 'ollang-trigger-panel.png'));
		await shootPickers(page, n8n.url, picking, path.join(outDir, 'ollang-project-list.png'), path.join(outDir, 'ollang-language-dropdown.png'));
	} finally {
		for (const stop of stops.reverse()) await stop();
		rmSync(userFolder, { recursive: true, force: true });
	}
	log(LOG_PREFIX, `done: ${outDir}`);
}

main().catch((error) => {
	log(LOG_PREFIX, `FAILED: ${error.message ?? error}`);
	process.exitCode = 1;
});
