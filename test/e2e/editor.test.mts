// The Ollang nodes as a person sees them in the real n8n editor, rendered by headless Chromium: a workflow created
// through n8n's REST API holds one Ollang node per operation and one Ollang Trigger per event; on the canvas every
// node's subtitle must name its operation, resource or event by display name (not the raw values), and in the
// trigger's settings panel (NDV) no parameter label may be cut off. Expectations come from the nodes' descriptions;
// what the editor shows is read from its DOM. Screenshots of the canvas and of each panel are written and checked.
// Then a person's first order: in Order > Create's panel a project is picked from the searchable list (searched by
// part of its name) and a target language from the dropdown the API's languages fill, with the mouse, and the node
// runs with them; the order the sandbox then holds has that project and language.
// Runs on the default n8n and on 1.123.81 (scripts/test.mjs), whose resource locator and dropdowns differ;
// Chromium is installed as scripts/n8n/ensure-chromium.sh does.
//
// OLLANG_E2E_SCREENSHOTS=<dir> keeps the screenshots there; otherwise they go with the temporary user folder.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';

import { Ollang } from '../../nodes/Ollang/Ollang.node.ts';
import { OllangTrigger } from '../../nodes/OllangTrigger/OllangTrigger.node.ts';
import {
	ensureChromium,
	hideTransientUi,
	mouseClick,
	signInThroughForm,
	startChromium,
	typeText,
	visibleElements,
	visibleTexts,
	WINDOW,
	type DevToolsPage,
	type RunningChromium,
} from '../../scripts/n8n/chromium.mjs';
import { createWorkflow, deleteWorkflow, LOCAL_OWNER, N8N_VERSION, restRequest, signIn, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import {
	byId,
	N8nUserFolder,
	OLLANG_NODE,
	OLLANG_TRIGGER_NODE,
	POLL_EVERY_MINUTE,
	SANDBOX_CREDENTIALS,
	SandboxClient,
	testCredentials,
	type WorkflowJson,
} from './harness.mts';

type Parameters = Record<string, unknown>;

const ollang = new Ollang().description;
const trigger = new OllangTrigger().description;

/** The trigger's label before it was shortened: it did not fit the panel. */
const OLD_LOOKBACK_LABEL = 'Watch Orders Created in the Last (Days)';
/** A screenshot of the editor with something drawn on it is tens of KB; a blank page of this size is about 8 KB. */
const MIN_SCREENSHOT_BYTES = 25_000;
/**
 * How long the canvas or a panel may take to show everything. 30 s was not enough once in npm test (2026-11-28): the
 * first trigger panel, beside the callback trigger's burst on two cores, showed its filters and options after that.
 * A panel that shows them sooner ends the wait sooner.
 */
const SETTLE_MS = 90_000;

function latestVersion(description: INodeTypeDescription): number {
	return description.defaultVersion ?? (Array.isArray(description.version) ? Math.max(...description.version) : description.version);
}

function optionsOf(property: INodeProperties | undefined): INodePropertyOptions[] {
	return (property?.options ?? []) as INodePropertyOptions[];
}

function property(description: INodeTypeDescription, name: string): INodeProperties {
	const found = description.properties.find((candidate) => candidate.name === name);
	if (!found) throw new Error(`${description.displayName} has no parameter "${name}"`);
	return found;
}

// ---------------------------------------------------------------------------------------------------------------
// What the descriptions say the editor should show

interface PlannedNode {
	id: string;
	name: string;
	type: string;
	parameters: Parameters;
	/** The subtitle by display names, from the description. */
	expected: string;
	/** The same subtitle by raw values: what must not be shown. */
	raw: string;
}

/** One Ollang node per operation of every resource: subtitle "<operation>: <resource>" by display names. */
function plannedOllangNodes(): PlannedNode[] {
	const nodes: PlannedNode[] = [];
	for (const resource of optionsOf(property(ollang, 'resource'))) {
		const selectors = ollang.properties.filter(
			(candidate) => candidate.name === 'operation' && ((candidate.displayOptions?.show?.resource ?? []) as unknown[]).includes(resource.value),
		);
		assert.equal(selectors.length, 1, `resource "${String(resource.value)}" has ${selectors.length} operation selectors`);
		for (const operation of optionsOf(selectors[0])) {
			const index = nodes.length + 1;
			nodes.push({
				id: `0e0e0000-0000-4000-8000-${String(index).padStart(12, '0')}`,
				name: `Ollang ${String(index).padStart(2, '0')}`,
				type: OLLANG_NODE,
				parameters: { resource: resource.value, operation: operation.value },
				expected: `${operation.name}: ${resource.name}`,
				raw: `${String(operation.value)}: ${String(resource.value)}`,
			});
		}
	}
	return nodes;
}

/**
 * What each event's trigger is given beyond the event, so that its panel shows every parameter the event has
 * (the collections' options too): an event missing here gets only its defaults, and the coverage check below
 * then says which labels no panel showed.
 */
const TRIGGER_PARAMETERS: Record<string, Parameters> = {
	orderDeliveryEvent: {
		watch: 'recentOrders',
		lookbackDays: 7,
		filters: { folderId: byId('6650f1c2a4b3e2d1c0b9a8f7'), types: ['subtitle'], statuses: ['completed'] },
		options: { emitExisting: true, concurrency: 2, recheckPerPoll: 5 },
	},
	qcEvaluationFinished: { watch: 'orderIds', orderIds: '6650f1c2a4b3e2d1c0b9a8f7', options: { emitExisting: true } },
	importJobFinished: {
		jobIds: '6650f1c2a4b3e2d1c0b9a8f7',
		memoryId: byId('6650f1c2a4b3e2d1c0b9a8f8'),
		includeFailed: true,
		waitForVectorization: true,
		options: { concurrency: 3 },
	},
};

/** One Ollang Trigger per event: subtitle the event's display name. */
function plannedTriggers(): PlannedNode[] {
	return optionsOf(property(trigger, 'event')).map((event, index) => ({
		id: `7e7e0000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
		name: `Ollang Trigger ${index + 1}`,
		type: OLLANG_TRIGGER_NODE,
		parameters: { pollTimes: POLL_EVERY_MINUTE, event: event.value, ...TRIGGER_PARAMETERS[String(event.value)] },
		expected: event.name,
		raw: String(event.value),
	}));
}

/**
 * The labels n8n shows for a node's parameters, from the description: every parameter whose display options
 * hold for the given values (or the defaults), notices aside (they are not labels), and each option set in a
 * collection. Conditions are read against the node's top-level values (all the trigger's conditions are).
 */
function shownLabels(properties: INodeProperties[], parameters: Parameters): string[] {
	const valueOf = (name: string) => (name in parameters ? parameters[name] : properties.find((candidate) => candidate.name === name)?.default);
	// A parameter name with a leading slash is the node's top-level parameter.
	const matches = ([key, allowed]: [string, unknown]) => ((allowed ?? []) as unknown[]).includes(valueOf(key.replace(/^\//, '')));
	const isShown = (candidate: INodeProperties) =>
		Object.entries(candidate.displayOptions?.show ?? {}).every(matches) && !Object.entries(candidate.displayOptions?.hide ?? {}).some(matches);
	const labels: string[] = [];
	for (const candidate of properties) {
		if (candidate.type === 'notice' || candidate.type === 'hidden' || !isShown(candidate)) continue;
		labels.push(candidate.displayName);
		if (candidate.type === 'collection') {
			const set = (parameters[candidate.name] ?? {}) as Parameters;
			for (const option of (candidate.options ?? []) as INodeProperties[]) if (option.name in set && isShown(option)) labels.push(option.displayName);
		}
	}
	return labels;
}

/** Every label the trigger has: its parameters (notices aside) and their collections' options. */
function allTriggerLabels(): string[] {
	return trigger.properties.flatMap((candidate) =>
		candidate.type === 'notice' ? [] : [candidate.displayName, ...(candidate.type === 'collection' ? ((candidate.options ?? []) as INodeProperties[]).map((option) => option.displayName) : [])],
	);
}

// ---------------------------------------------------------------------------------------------------------------
// What the editor shows, read from its DOM. Page scripts are plain strings: the test's own functions, compiled by
// tsx, would carry helpers the page does not have.

interface CanvasNodeText {
	name: string;
	type: string;
	/** The node's name as the canvas writes it under the icon. */
	label: string | null;
	subtitle: string | null;
}

/**
 * The canvas nodes (`[data-test-id="canvas-node"]`, named by `data-node-name`) and the texts of their description
 * block: n8n 2.40 marks those with CSS-module classes only (`_description_<hash>`, holding `_label_<hash>` and
 * `_subtitle_<hash>`), so a class is matched by its module name.
 */
const READ_CANVAS = `(() => {
	const hasModuleClass = (element, name) => [...element.classList].some((value) => value === name || value.startsWith('_' + name + '_'));
	return [...document.querySelectorAll('[data-test-id="canvas-node"]')].map((node) => {
		const description = [...node.querySelectorAll('div')].find((element) => hasModuleClass(element, 'description'));
		const part = (name) => {
			const element = description ? [...description.children].find((child) => hasModuleClass(child, name)) : undefined;
			return element ? element.textContent.trim() : null;
		};
		return { name: node.dataset.nodeName, type: node.dataset.nodeType, label: part('label'), subtitle: part('subtitle') };
	});
})()`;

interface PanelLabel {
	/** The parameter the label is for (its `for` attribute). */
	for: string;
	text: string;
	/** The element that holds the text (it has text-overflow: ellipsis) and the label: scrollWidth > clientWidth means cut off. */
	textScrollWidth: number;
	textClientWidth: number;
	labelScrollWidth: number;
	labelClientWidth: number;
	textOverflow: string;
	truncated: boolean;
}

/**
 * Every rendered parameter label in the open panel's Parameters tab (`[data-test-id="ndv"]
 * [data-test-id="node-parameters"] label.n8n-input-label`), with its text (from the text span in its
 * `_title_<hash>` block, the required-asterisk left out) and whether it is cut off. `replace` first puts another
 * text into one label (by its `for`), measures, and puts the original back: the check's own control.
 */
function readPanelLabels(replace?: { for: string; text: string }): string {
	return `(() => {
		const replace = ${JSON.stringify(replace ?? null)};
		const panel = document.querySelector('[data-test-id="ndv"] [data-test-id="node-parameters"]');
		if (!panel) return null;
		const labels = [...panel.querySelectorAll('label.n8n-input-label')].filter((label) => label.getClientRects().length > 0);
		const textElement = (label) => {
			const title = [...label.querySelectorAll('div')].find((element) => [...element.classList].some((value) => value.startsWith('_title_')));
			return (title && title.querySelector(':scope > span')) || label.querySelector('span.n8n-text') || label;
		};
		const ownText = (element) => [...element.childNodes].filter((child) => child.nodeType === Node.TEXT_NODE).map((child) => child.textContent).join('').trim();
		let restore = () => {};
		if (replace) {
			const label = labels.find((candidate) => candidate.htmlFor === replace.for);
			const textNodes = label ? [...textElement(label).childNodes].filter((child) => child.nodeType === Node.TEXT_NODE) : [];
			if (textNodes.length === 0) return null;
			const originals = textNodes.map((node) => node.textContent);
			textNodes.forEach((node, index) => { node.textContent = index === 0 ? replace.text + ' ' : ''; });
			restore = () => textNodes.forEach((node, index) => { node.textContent = originals[index]; });
		}
		try {
			return labels.map((label) => {
				const text = textElement(label);
				const measured = {
					for: label.htmlFor,
					text: ownText(text) || label.textContent.trim(),
					textScrollWidth: text.scrollWidth,
					textClientWidth: text.clientWidth,
					labelScrollWidth: label.scrollWidth,
					labelClientWidth: label.clientWidth,
					textOverflow: getComputedStyle(text).textOverflow,
				};
				return { ...measured, truncated: measured.textScrollWidth > measured.textClientWidth || measured.labelScrollWidth > measured.labelClientWidth };
			});
		} finally {
			restore();
		}
	})()`;
}

/** Reads until `done` holds for the reading, or SETTLE_MS pass; returns the last reading either way, for the assertions to judge. */
async function settle<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
	const deadline = Date.now() + SETTLE_MS;
	for (;;) {
		const value = await read();
		if (done(value) || Date.now() > deadline) return value;
		await sleep(500);
	}
}

/** A PNG of the browser window (WINDOW) with more than blank page in it. */
function assertScreenshot(file: string): number {
	const data = readFileSync(file);
	assert.deepEqual([...data.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${file} is not a PNG`);
	assert.deepEqual({ width: data.readUInt32BE(16), height: data.readUInt32BE(20) }, { width: WINDOW.width, height: WINDOW.height }, `${file}: size`);
	assert.ok(data.length > MIN_SCREENSHOT_BYTES, `${file} is ${data.length} bytes, no more than a blank page (${MIN_SCREENSHOT_BYTES})`);
	return data.length;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The texts of the visible elements matching `selector`, once `done` holds for them (or SETTLE_MS pass). */
async function settledTexts(page: DevToolsPage, selector: string, done: (texts: string[]) => boolean): Promise<string[]> {
	return await settle(() => visibleTexts(page, selector).catch(() => []), done);
}

/**
 * Opens a list with the mouse (its field `trigger`) and returns the texts of its `item`s once `done` holds for them.
 * A click that lands while the panel is still drawing itself opens nothing: the field is clicked again then, as a
 * person would, but never while the list (`open`) is showing, which a click would close.
 */
async function openList(page: DevToolsPage, trigger: string, item: string, open: string, done: (texts: string[]) => boolean): Promise<string[]> {
	let clickedAt = 0;
	return await settle(
		async () => {
			const texts = await visibleTexts(page, item).catch(() => []);
			const showing = await page.evaluate<boolean>(`${visibleElements(open)}.length > 0`).catch(() => false);
			if (!done(texts) && !showing && Date.now() - clickedAt > 3_000) {
				clickedAt = Date.now();
				await mouseClick(page, trigger);
			}
			return texts;
		},
		done,
	);
}

/** Clicks the visible element matching `selector` whose text is `text`, once it is shown; fails naming what was. */
async function pick(page: DevToolsPage, selector: string, text: string): Promise<string[]> {
	const texts = await settledTexts(page, selector, (shown) => shown.includes(text));
	assert.ok(texts.includes(text), `"${text}" is not among ${JSON.stringify(texts)}`);
	await mouseClick(page, selector, texts.indexOf(text));
	return texts;
}


// ---------------------------------------------------------------------------------------------------------------

describe('the Ollang nodes in the real n8n editor (headless Chromium)', { timeout: 15 * 60_000 }, () => {
	const ollangNodes = plannedOllangNodes();
	const triggers = plannedTriggers();
	let sandbox: SandboxClient | undefined;
	let n8n: N8nUserFolder | undefined;
	let server: RunningN8n | undefined;
	let chromium: RunningChromium | undefined;
	let page: DevToolsPage;
	let cookie: string;
	let shotsDir: string;
	let workflowId: string | undefined;
	let pickWorkflowId: string | undefined;

	before(async () => {
		await ensureChromium();
		sandbox = await SandboxClient.start();
		n8n = N8nUserFolder.create('editor');
		shotsDir = process.env.OLLANG_E2E_SCREENSHOTS ? path.resolve(process.env.OLLANG_E2E_SCREENSHOTS) : path.join(n8n.root, 'screenshots');
		mkdirSync(shotsDir, { recursive: true });
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		server = await n8n.start();
		cookie = await signIn(server.url);
		const nodes: WorkflowJson['nodes'] = [...triggers, ...ollangNodes].map((planned, index) => {
			// Triggers in the first column, the Ollang nodes in rows of eight beside them.
			const isTrigger = planned.type === OLLANG_TRIGGER_NODE;
			const slot = isTrigger ? index : index - triggers.length;
			const description = isTrigger ? trigger : ollang;
			return {
				id: planned.id,
				name: planned.name,
				type: planned.type,
				typeVersion: latestVersion(description),
				position: isTrigger ? [0, slot * 240] : [320 + (slot % 8) * 280, Math.floor(slot / 8) * 240],
				parameters: planned.parameters,
				credentials: { ollangApi: SANDBOX_CREDENTIALS.owner },
			};
		});
		const created = await createWorkflow(server.url, cookie, {
			name: `Editor test ${new Date().toISOString()} (scratch, deleted afterwards)`,
			// n8n 1.x stores a new workflow only with its active flag; 2.x takes it too.
			active: false,
			nodes,
			connections: {},
			settings: { executionOrder: 'v1' },
		});
		workflowId = created.id;
		chromium = await startChromium();
		page = chromium.page;
		await signInThroughForm(page, server.url, LOCAL_OWNER);
	});

	after(async () => {
		// Each step runs whatever the one before did; the first failure is reported after all of them.
		const failures: unknown[] = [];
		const step = async (work: () => Promise<void> | void) => {
			try {
				await work();
			} catch (error) {
				failures.push(error);
			}
		};
		await step(() => chromium?.stop());
		await step(async () => {
			if (server && workflowId) await deleteWorkflow(server.url, cookie, workflowId);
		});
		await step(async () => {
			if (server && pickWorkflowId) await deleteWorkflow(server.url, cookie, pickWorkflowId);
		});
		await step(() => server?.stop());
		await step(() => sandbox?.stop());
		await step(() => n8n?.remove());
		if (failures.length > 0) throw failures[0];
	});

	async function openCanvas(): Promise<CanvasNodeText[]> {
		const ours = ollangNodes.length + triggers.length;
		await page.navigate(`${server!.url}/workflow/${workflowId}`);
		// Each node gets its subtitle once n8n has its node type and evaluated the subtitle expression.
		return await settle(
			() => page.evaluate<CanvasNodeText[]>(READ_CANVAS).catch(() => []),
			(nodes) => nodes.length >= ours && nodes.every((node) => node.subtitle),
		);
	}

	let canvas: CanvasNodeText[] = [];

	it('the canvas shows every node of the workflow, each with its name as label', async () => {
		canvas = await openCanvas();
		const expected = Object.fromEntries([...triggers, ...ollangNodes].map((node) => [node.name, { type: node.type, label: node.name }]));
		const shown = Object.fromEntries(canvas.map((node) => [node.name, { type: node.type, label: node.label }]));
		assert.deepEqual(shown, expected);
	});

	it('every Ollang node shows "<operation>: <resource>" by display names, not raw values', () => {
		const shown = Object.fromEntries(ollangNodes.map((node) => [node.name, canvas.find((candidate) => candidate.name === node.name)?.subtitle ?? null]));
		assert.deepEqual(shown, Object.fromEntries(ollangNodes.map((node) => [node.name, node.expected])));
		// Every operation's display form differs from its raw form, so the comparison above tells them apart.
		assert.deepEqual(ollangNodes.filter((node) => node.expected === node.raw).map((node) => node.raw), []);
		const subtitles = canvas.map((node) => node.subtitle ?? '');
		assert.deepEqual(ollangNodes.filter((node) => subtitles.includes(node.raw)).map((node) => node.raw), [], 'raw "<operation>: <resource>" subtitles');
	});

	it('every Ollang Trigger shows its event by display name, not its raw value', () => {
		const shown = Object.fromEntries(triggers.map((node) => [node.name, canvas.find((candidate) => candidate.name === node.name)?.subtitle ?? null]));
		assert.deepEqual(shown, Object.fromEntries(triggers.map((node) => [node.name, node.expected])));
		assert.deepEqual(triggers.filter((node) => node.expected === node.raw).map((node) => node.raw), []);
		const canvasText = canvas.map((node) => `${node.label}\n${node.subtitle}`).join('\n');
		assert.deepEqual(triggers.filter((node) => canvasText.includes(node.raw)).map((node) => node.raw), [], 'raw event values on the canvas');
	});

	it('no subtitle on the canvas is an unevaluated expression or a raw value', async () => {
		const canvasText = await page.evaluate<string>(`document.querySelector('[data-test-id="canvas"]')?.innerText ?? ''`);
		assert.ok(canvasText.includes(ollangNodes[0].expected), `the canvas text does not include "${ollangNodes[0].expected}"`);
		const leftovers = ['{{', '$parameter', ...ollangNodes.map((node) => node.raw), ...triggers.map((node) => node.raw)].filter((text) => canvasText.includes(text));
		assert.deepEqual(leftovers, []);
	});

	it('a screenshot of the whole canvas is written', async (t) => {
		await page.click('[data-test-id="zoom-to-fit"]', 'zoom to fit');
		await sleep(1500);
		await hideTransientUi(page);
		const file = path.join(shotsDir, 'editor-canvas.png');
		await page.screenshot(file);
		t.diagnostic(`${file}: ${assertScreenshot(file)} bytes${process.env.OLLANG_E2E_SCREENSHOTS ? '' : ' (removed with the user folder; OLLANG_E2E_SCREENSHOTS=<dir> keeps the screenshots)'}`);
	});

	// Filled by the panel tests: every label measured in some trigger panel.
	const measuredLabels = new Set<string>();

	for (const node of triggers) {
		it(`the panel of the trigger on "${node.expected}" shows every parameter label in full`, async (t) => {
			const expected = shownLabels(trigger.properties, node.parameters);
			await page.navigate(`${server!.url}/workflow/${workflowId}/${node.id}`);
			const labels = await settle(
				async () => (await page.evaluate<PanelLabel[] | null>(readPanelLabels()).catch(() => null)) ?? [],
				(found) => expected.every((text) => found.some((label) => label.text === text)),
			);
			// Icons and option lists load just after the panel appears.
			await sleep(1000);
			const settled = (await page.evaluate<PanelLabel[] | null>(readPanelLabels())) ?? labels;
			for (const label of settled) measuredLabels.add(label.text);
			assert.deepEqual(expected.filter((text) => !settled.some((label) => label.text === text)), [], 'labels the description gives that the panel does not show');
			assert.deepEqual(settled.filter((label) => label.truncated), [], 'labels cut off');
			const panelText = await page.evaluate<string>(`document.querySelector('[data-test-id="ndv"]')?.innerText ?? ''`);
			assert.ok(!panelText.includes(OLD_LOOKBACK_LABEL), `the panel still shows "${OLD_LOOKBACK_LABEL}"`);
			await hideTransientUi(page);
			const file = path.join(shotsDir, `editor-trigger-panel-${node.raw}.png`);
			await page.screenshot(file);
			t.diagnostic(`${settled.length} labels in full (${settled.map((label) => label.text).join(', ')}); ${file}: ${assertScreenshot(file)} bytes`);
		});
	}

	it('the look-back label is the shortened one, and the old one would be cut off in the same panel', async () => {
		const lookback = property(trigger, 'lookbackDays');
		assert.notEqual(lookback.displayName, OLD_LOOKBACK_LABEL);
		assert.ok(!JSON.stringify(trigger).includes(OLD_LOOKBACK_LABEL), `the trigger's description still has "${OLD_LOOKBACK_LABEL}"`);
		const withLookback = triggers.find((node) => shownLabels(trigger.properties, node.parameters).includes(lookback.displayName));
		assert.ok(withLookback, `no trigger panel shows "${lookback.displayName}"`);
		await page.navigate(`${server!.url}/workflow/${workflowId}/${withLookback.id}`);
		const shown = await settle(
			async () => (await page.evaluate<PanelLabel[] | null>(readPanelLabels()).catch(() => null)) ?? [],
			(found) => found.some((label) => label.for === lookback.name),
		);
		await sleep(1000);
		const current = (await page.evaluate<PanelLabel[] | null>(readPanelLabels())) ?? shown;
		const label = current.find((candidate) => candidate.for === lookback.name);
		assert.ok(label, `the panel has no label for "${lookback.name}"`);
		assert.equal(label.text, lookback.displayName);
		assert.equal(label.truncated, false, `"${label.text}" is cut off: ${JSON.stringify(label)}`);
		// The check's control: the same label with the old text, measured in place, is cut off (with an ellipsis).
		const withOldText = (await page.evaluate<PanelLabel[] | null>(readPanelLabels({ for: lookback.name, text: OLD_LOOKBACK_LABEL }))) ?? [];
		const old = withOldText.find((candidate) => candidate.for === lookback.name);
		assert.ok(old, 'the control measured no label');
		assert.equal(old.text, OLD_LOOKBACK_LABEL);
		assert.equal(old.truncated, true, `the old label fits: ${JSON.stringify(old)}`);
		// n8n 2.x ends a cut-off label with an ellipsis; 1.x clips it.
		assert.equal(old.textOverflow, N8N_VERSION.startsWith('1.') ? 'clip' : 'ellipsis');
		// And the page has its own text back.
		const restored = ((await page.evaluate<PanelLabel[] | null>(readPanelLabels())) ?? []).find((candidate) => candidate.for === lookback.name);
		assert.equal(restored?.text, lookback.displayName);
	});

	it('every label the trigger has was measured in one of the panels', () => {
		assert.deepEqual(allTriggerLabels().filter((text) => !measuredLabels.has(text)), []);
	});

	it('Order > Create: a project picked from the searchable list and a language from the dropdown, and the node runs with them', async (t) => {
		const fixtures = await sandbox!.fixtures();
		const projectId = fixtures.projects.writable;
		const project = await sandbox!.get<{ name: string; sourceLanguage: string }>(`/integration/project/${projectId}`);
		const projectLabel = `${project.name} (${project.sourceLanguage})`;
		const catalogue = await sandbox!.get<Array<{ code: string; name: string; variants?: Array<{ code: string; name: string }> }>>('/integration/locales/languages');
		const languageLabels = catalogue.flatMap((language) => [language, ...(language.variants ?? [])]).map((language) => `${language.name} (${language.code})`);
		const german = catalogue.find((language) => language.code === 'de');
		assert.ok(german, 'the catalogue has no de');
		const germanLabel = `${german.name} (de)`;
		const ordersOfProject = async () =>
			(await sandbox!.getAllPages<{ id: string; projectId: string; targetLanguage: string; type: string }>('/integration/orders', { 'filter[projectId]': projectId })).map((order) => order.id);
		const before = new Set(await ordersOfProject());

		const nodeId = '5e5e0000-0000-4000-8000-000000000001';
		const created = await createWorkflow(server!.url, cookie, {
			name: `Editor pick test ${new Date().toISOString()} (scratch, deleted afterwards)`,
			active: false,
			nodes: [
				{
					id: nodeId,
					name: 'Create order',
					type: OLLANG_NODE,
					typeVersion: latestVersion(ollang),
					position: [0, 0],
					// A document order, AI only: the project and the language are left to pick.
					parameters: { resource: 'order', operation: 'create', orderType: 'document', level: 0 },
					credentials: { ollangApi: SANDBOX_CREDENTIALS.owner },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		});
		pickWorkflowId = created.id;
		await page.navigate(`${server!.url}/workflow/${pickWorkflowId}/${nodeId}`);
		const projectInput = '[data-test-id="ndv"] [data-test-id="parameter-input-projectId"] [data-test-id="rlc-input"]';
		await page.waitFor(`${visibleElements(projectInput)}.length > 0`, "the Project field of Order > Create's panel", SETTLE_MS);

		// The project: the list opens with the account's projects, newest first; searching narrows it.
		const listed = await openList(page, projectInput, '[data-test-id="rlc-item"]', '[data-test-id="rlc-search"]', (texts) => texts.length > 1);
		assert.ok(listed.length > 1, `the project list shows ${JSON.stringify(listed)}`);
		const firstPage = await sandbox!.get<{ data: Array<{ name: string; sourceLanguage: string }> }>('/integration/project', {
			query: { page: 1, take: 50, orderBy: 'createdAt', orderDirection: 'desc' },
		});
		assert.deepEqual(listed, firstPage.data.map((row) => `${row.name} (${row.sourceLanguage})`).slice(0, listed.length), 'the list holds the API\'s projects, newest first');
		await typeText(page, project.name.slice(0, Math.max(4, project.name.length - 3)));
		const searched = await pick(page, '[data-test-id="rlc-item"]', projectLabel);
		assert.ok(searched.length < firstPage.data.length || firstPage.data.length === 1, `the search did not narrow the list: ${searched.length} rows`);
		const shownProject = await settle(
			() => page.evaluate<string>(`document.querySelector(${JSON.stringify(projectInput)})?.value ?? ''`),
			(value) => value === projectLabel,
		);
		assert.equal(shownProject, projectLabel);

		// The language: the dropdown lists the API's languages and their variants; typing filters it.
		const languageInput = '[data-test-id="ndv"] [data-test-id="parameter-input-code"] input';
		const offered = await openList(page, languageInput, '[data-test-id="parameter-input-item"]', '.el-select-dropdown', (texts) => texts.includes(germanLabel));
		assert.ok(offered.includes(germanLabel), `the language dropdown shows ${JSON.stringify(offered)}`);
		assert.deepEqual([...offered].sort(), [...languageLabels].sort(), "the dropdown offers the API's languages and variants");
		await typeText(page, german.name);
		await pick(page, '[data-test-id="parameter-input-item"]', germanLabel);
		const shownLanguage = await settle(
			() => page.evaluate<string>(`document.querySelector(${JSON.stringify(languageInput)})?.value ?? ''`),
			(value) => value === germanLabel,
		);
		assert.equal(shownLanguage, germanLabel);

		// The node runs from its panel with what was picked.
		await mouseClick(page, '[data-test-id="ndv"] [data-test-id="node-execute-button"]');
		const output = '[data-test-id="ndv"] [data-test-id="output-panel"]';
		const ran = await settle(
			() => page.evaluate<string>(`document.querySelector(${JSON.stringify(output)})?.innerText ?? ''`),
			(text) => /\b1 item\b/.test(text),
		);
		assert.match(ran, /\b1 item\b/, 'the node did not output its order');
		await hideTransientUi(page);
		const file = path.join(shotsDir, 'editor-order-create-picked.png');
		await page.screenshot(file);

		const createdOrders = (await ordersOfProject()).filter((id) => !before.has(id));
		assert.equal(createdOrders.length, 1, `orders created in the picked project: ${JSON.stringify(createdOrders)}`);
		const order = await sandbox!.get<{ projectId: string; targetLanguage: string; type: string }>(`/integration/orders/${createdOrders[0]}`);
		assert.deepEqual({ projectId: order.projectId, targetLanguage: order.targetLanguage, type: order.type }, { projectId, targetLanguage: 'de', type: 'document' });
		// Saved as the editor saves it: the project as a list pick (its ID), the language as its code.
		for (const type of ['keyDown', 'keyUp']) await page.send('Input.dispatchKeyEvent', { type, modifiers: 2, key: 's', code: 'KeyS', windowsVirtualKeyCode: 83 });
		type Saved = { nodes: Array<{ id: string; parameters: { projectId?: { __rl?: boolean; mode?: string; value?: string }; targetLanguages?: { language?: Array<{ code?: string }> } } }> };
		const savedNode = async () => (await restRequest<Saved>(server!.url, cookie, 'GET', `/rest/workflows/${pickWorkflowId}`)).nodes.find((node) => node.id === nodeId);
		const saved = await settle(savedNode, (node) => node?.parameters.projectId?.value === projectId && node.parameters.targetLanguages?.language?.[0]?.code === 'de');
		assert.deepEqual(
			{ projectId: { ...saved?.parameters.projectId, cachedResultName: undefined }, code: saved?.parameters.targetLanguages?.language?.[0]?.code },
			{ projectId: { __rl: true, mode: 'list', value: projectId, cachedResultName: undefined }, code: 'de' },
		);
		t.diagnostic(`picked "${projectLabel}" among ${listed.length} projects and "${germanLabel}" among ${offered.length} languages; order ${createdOrders[0]}; ${file}: ${assertScreenshot(file)} bytes`);
	});

	it('the scratch workflow is deleted through the REST API', async () => {
		await deleteWorkflow(server!.url, cookie, workflowId!);
		const deleted = workflowId!;
		workflowId = undefined;
		await assert.rejects(restRequest(server!.url, cookie, 'GET', `/rest/workflows/${deleted}`), /HTTP 404/);
	});
});
