#!/usr/bin/env node
// Proves a running n8n editor works with this package, the way a person would see it:
//  1. n8n's REST API (signed in as the local owner) lists our node types among the loaded ones;
//  2. Debian's chromium, headless, loads the editor: --dump-dom shows the app rendered its sign-in form, and
//     --screenshot writes a PNG of it;
//  3. chromium signs in through the form, opens a scratch workflow holding the Ollang node with its settings panel
//     open, and writes a PNG of that; the scratch workflow is deleted afterwards.
//
//   node scripts/check-editor.mjs [editorUrl=http://localhost:5678] [--out-dir DIR] [--email E --password P]
//
// Plain Node builtins; step 3 drives chromium over the DevTools protocol (scripts/n8n/chromium.mjs). The end-to-end
// test test/e2e/editor.test.mts goes further on a fresh n8n: canvas subtitles and the trigger's labels.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CHROMIUM_FLAGS, ensureChromium, newProfileDir, signInThroughForm, startChromium } from './n8n/chromium.mjs';
import { log, runCommand } from './n8n/process.mjs';
import { LOCAL_OWNER, REPO_ROOT, createWorkflow, deleteWorkflow, listLoadedNodeTypes, restRequest, signIn } from './n8n/runtime.mjs';

const LOG_PREFIX = 'check-editor';

const { values: flags, positionals } = parseArgs({
	allowPositionals: true,
	options: {
		'out-dir': { type: 'string', default: path.join(tmpdir(), 'n8n-nodes-ollang-editor-check') },
		email: { type: 'string', default: LOCAL_OWNER.email },
		password: { type: 'string', default: LOCAL_OWNER.password },
	},
});
const editorUrl = (positionals[0] ?? 'http://localhost:5678').replace(/\/+$/, '');
const owner = { email: flags.email, password: flags.password };
const outDir = path.resolve(flags['out-dir']);

/** `<package>.<node name>` for every node file the package declares: `dist/nodes/Ollang/Ollang.node.js` -> `ollang`. */
function expectedNodeTypes() {
	const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
	return manifest.n8n.nodes.map((file) => {
		const className = path.basename(file, '.node.js');
		return `${manifest.name}.${className[0].toLowerCase()}${className.slice(1)}`;
	});
}

async function checkLoadedNodeTypes(cookie) {
	const loaded = new Set(await listLoadedNodeTypes(editorUrl, cookie));
	const expected = expectedNodeTypes();
	const missing = expected.filter((type) => !loaded.has(type));
	if (missing.length > 0) throw new Error(`n8n at ${editorUrl} has not loaded ${missing.join(', ')} (it has ${loaded.size} node types)`);
	log(LOG_PREFIX, `REST: n8n has loaded ${expected.join(', ')} (among ${loaded.size} node types)`);
}

/** Chromium's own one-shot modes: the rendered DOM, then a screenshot, each with a fresh profile. */
async function checkRendersHeadless() {
	const profile = newProfileDir();
	try {
		// The virtual-time budget lets the single-page app fetch its settings and mount before the DOM is dumped.
		const common = [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--virtual-time-budget=20000'];
		const { stdout: dom } = await runCommand('chromium', [...common, '--dump-dom', editorUrl], { label: 'chromium --dump-dom', timeoutMs: 90_000 });
		writeFileSync(path.join(outDir, 'editor.html'), dom);
		// index.html alone is an empty <div id="app">; the sign-in form exists only once the app has rendered.
		if (!dom.includes('id="app"') || !dom.includes('data-test-id="signin-form"')) {
			throw new Error(`chromium loaded ${editorUrl} but the n8n app did not render its sign-in form (DOM saved to ${path.join(outDir, 'editor.html')})`);
		}
		log(LOG_PREFIX, `chromium --dump-dom: the editor app rendered (sign-in form present, ${dom.length} characters of DOM)`);
		const screenshot = path.join(outDir, 'editor-signin.png');
		rmSync(screenshot, { force: true });
		await runCommand('chromium', [...common, `--screenshot=${screenshot}`, editorUrl], { label: 'chromium --screenshot', timeoutMs: 90_000 });
		if (statSync(screenshot, { throwIfNoEntry: false })?.size > 0) log(LOG_PREFIX, `chromium --screenshot: ${screenshot}`);
		else throw new Error(`chromium wrote no screenshot to ${screenshot}`);
	} finally {
		rmSync(profile, { recursive: true, force: true });
	}
}

/** A scratch workflow, Manual Trigger -> Ollang (with an Ollang credential if there is one), removed after the check. */
async function createScratchWorkflow(cookie) {
	const credentials = await restRequest(editorUrl, cookie, 'GET', '/rest/credentials');
	const credential = credentials.find((candidate) => candidate.type === 'ollangApi');
	const [ollangType] = expectedNodeTypes();
	const workflow = await createWorkflow(editorUrl, cookie, {
		name: `Editor check ${new Date().toISOString()} (scratch, deleted after the check)`,
		nodes: [
			{ id: 'c0ffee00-0000-4000-8000-000000000001', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'c0ffee00-0000-4000-8000-000000000002',
				name: 'Ollang',
				type: ollangType,
				typeVersion: 1,
				position: [260, 0],
				parameters: {},
				...(credential ? { credentials: { ollangApi: { id: credential.id, name: credential.name } } } : {}),
			},
		],
		connections: { Start: { main: [[{ node: 'Ollang', type: 'main', index: 0 }]] } },
		settings: {},
	});
	return { id: workflow.id, ollangNodeId: 'c0ffee00-0000-4000-8000-000000000002', credential };
}

/** Signs in through the form like a person, opens the scratch workflow with the Ollang node's panel open. */
async function checkNodePanel(cookie) {
	const scratch = await createScratchWorkflow(cookie);
	let chromium;
	try {
		chromium = await startChromium();
		const { page } = chromium;
		await signInThroughForm(page, editorUrl, owner);
		log(LOG_PREFIX, `chromium: signed in through the form as ${owner.email}`);

		// /workflow/<id>/<nodeId> opens the workflow with that node's settings panel (NDV) open.
		await page.navigate(`${editorUrl}/workflow/${scratch.id}/${scratch.ollangNodeId}`);
		const panelText = await page.waitFor(
			`(() => { const panel = document.querySelector('[data-test-id="ndv"]'); return panel && panel.innerText.includes('Resource') ? panel.innerText : ''; })()`,
			"the Ollang node's settings panel with its Resource parameter",
		);
		// Icons and option lists load just after the panel appears.
		await new Promise((resolve) => setTimeout(resolve, 2000));
		const screenshot = path.join(outDir, 'editor-ollang-node.png');
		await page.screenshot(screenshot);
		const mentions = ['Credential', 'Resource', 'Operation'].filter((text) => panelText.includes(text));
		log(LOG_PREFIX, `chromium: the Ollang node's panel renders (${mentions.join(', ')}): ${screenshot}`);
	} finally {
		await chromium?.stop();
		await deleteWorkflow(editorUrl, cookie, scratch.id).catch((error) => log(LOG_PREFIX, `could not delete scratch workflow ${scratch.id}: ${error.message}`));
	}
}

async function main() {
	mkdirSync(outDir, { recursive: true });
	await ensureChromium();
	const cookie = await signIn(editorUrl, owner).catch((error) => {
		throw new Error(`cannot sign in to n8n at ${editorUrl} (is it running? \`npm start\` starts one): ${error.cause?.message ?? error.message}`);
	});
	await checkLoadedNodeTypes(cookie);
	await checkRendersHeadless();
	await checkNodePanel(cookie);
	log(LOG_PREFIX, `OK: the editor at ${editorUrl} renders and has loaded this package; screenshots in ${outDir}`);
}

main().catch((error) => {
	log(LOG_PREFIX, `FAILED: ${error.message ?? error}`);
	process.exitCode = 1;
});
