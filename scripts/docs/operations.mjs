#!/usr/bin/env node
// `npm run docs:operations`: writes docs/operations.md, the operations reference, from the BUILT nodes' own
// descriptions (dist/, what n8n loads): every resource, operation and event, every parameter with its internal name,
// type, default, description, hint and options, and the node versions a parameter belongs to when it is not all of
// them. Generated, so it cannot drift from the node: test/tools/operationsReference.test.cts fails when the committed
// page differs from what this script makes of the current build.
//
//   npm run docs:operations              build first (npm run build), then write docs/operations.md
//   node scripts/docs/operations.mjs --check [--page FILE]   exit 1 when FILE (default docs/operations.md) is stale
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGE = path.join(REPO_ROOT, 'docs', 'operations.md');
export const REGENERATE = 'npm run build && npm run docs:operations';

/** The classes n8n loads (package.json#n8n), from dist/. */
function loadBuilt(root) {
	const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
	const require = createRequire(path.join(root, 'package.json'));
	const instances = (files) =>
		files.map((file) => {
			const full = path.join(root, file);
			if (!existsSync(full)) throw new Error(`${file} is not built: run npm run build first`);
			return Object.values(require(full)).map((Class) => new Class());
		}).flat();
	return { nodes: instances(pkg.n8n.nodes).map((node) => node.description), credentials: instances(pkg.n8n.credentials) };
}

/** Whether one displayOptions value list admits `value` (plain values, or n8n's `_cnd` conditions). */
function admits(allowed, value) {
	return allowed.some((entry) => {
		if (entry === null || typeof entry !== 'object' || !('_cnd' in entry)) return entry === value;
		return Object.entries(entry._cnd).every(([op, operand]) => {
			switch (op) {
				case 'eq': return value === operand;
				case 'not': return value !== operand;
				case 'gte': return value >= operand;
				case 'lte': return value <= operand;
				case 'gt': return value > operand;
				case 'lt': return value < operand;
				default: throw new Error(`displayOptions condition _cnd.${op} is not handled by scripts/docs/operations.mjs`);
			}
		});
	});
}

const describeValue = (entry) => (entry !== null && typeof entry === 'object' && '_cnd' in entry ? Object.entries(entry._cnd).map(([op, operand]) => `${op} ${JSON.stringify(operand)}`).join(', ') : JSON.stringify(entry));

/**
 * Whether a property shows for `context` (the selectors: resource, operation, event, @version), and the conditions
 * on other parameters it still depends on ("Return All is false"). Inside a collection, `/name` is a root parameter.
 */
function visibility(property, context, parameters) {
	const conditions = [];
	const { show = {}, hide = {} } = property.displayOptions ?? {};
	const described = (key, values, negated) => {
		const controlling = parameters.get(key);
		const named = values.map((value) => {
			const option = controlling?.options?.find?.((candidate) => candidate.value === value);
			return option?.name ? `"${option.name}"` : describeValue(value);
		});
		return `${controlling?.displayName ?? key} is ${negated ? 'not ' : ''}${named.join(' or ')}`;
	};
	for (const [rawKey, allowed] of Object.entries(show)) {
		const key = rawKey.replace(/^\//, '');
		if (key in context) {
			if (!admits(allowed, context[key])) return { shown: false };
		} else conditions.push(described(key, allowed, false));
	}
	for (const [rawKey, refused] of Object.entries(hide)) {
		const key = rawKey.replace(/^\//, '');
		if (key in context) {
			if (admits(refused, context[key])) return { shown: false };
		} else conditions.push(described(key, refused, true));
	}
	return { shown: true, conditions };
}

/** A text as a sentence: n8n's descriptions end without a period, which running text needs. */
const sentence = (text) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
const cell = (text) => String(text).replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();
const code = (text) => `\`${String(text).replace(/`/g, "'")}\``;

function formatDefault(property) {
	if (property.type === 'notice') return '';
	const value = property.default;
	if (value === undefined) return '';
	if (property.type === 'resourceLocator' && value && typeof value === 'object') return value.value ? code(JSON.stringify(value.value)) : `empty (${value.mode})`;
	if (value === '') return 'empty';
	if (typeof value === 'object' && Object.keys(value).length === 0) return 'none';
	return code(JSON.stringify(value));
}

function optionList(property) {
	if (property.typeOptions?.loadOptionsMethod) return 'options loaded from the API';
	if (!['options', 'multiOptions'].includes(property.type) || !Array.isArray(property.options)) return '';
	return `options: ${property.options.map((option) => `${option.name} (${code(option.value)})`).join(', ')}`;
}

function details(property, conditions, versions, allVersions) {
	const parts = [];
	if (property.type === 'notice') parts.push(`Notice: ${sentence(property.displayName)}`);
	if (property.description) parts.push(sentence(property.description));
	if (property.hint) parts.push(`Hint: ${sentence(property.hint)}`);
	if (property.placeholder) parts.push(`Placeholder: ${code(property.placeholder)}.`);
	const options = optionList(property);
	if (options) parts.push(`${options.charAt(0).toUpperCase()}${options.slice(1)}.`);
	if (property.type === 'resourceLocator') parts.push(`Modes: ${property.modes.map((mode) => mode.displayName).join(', ')}.`);
	if (property.required) parts.push('Required.');
	if (conditions.length > 0) parts.push(`Shown when ${conditions.join(' and ')}.`);
	if (versions.length < allVersions.length) parts.push(`Node version ${versions.join(', ')} only.`);
	return parts.join(' ');
}

/** Table rows of a property and of what it holds (collection options, fixed collection values), with their paths. */
function rows(property, conditions, versions, allVersions, context, parameters, prefix = '') {
	const label = `${prefix}${property.type === 'notice' ? '(notice)' : property.displayName}`;
	const out = [`| ${cell(label)} | ${property.type === 'notice' ? '' : code(property.name)} | ${property.type} | ${cell(formatDefault(property))} | ${cell(details(property, conditions, versions, allVersions))} |`];
	const children =
		property.type === 'collection' ? property.options.map((child) => ({ child, path: `${label} > ` }))
		: property.type === 'fixedCollection' ? property.options.flatMap((group) => group.values.map((child) => ({ child, path: `${label} > ${group.displayName} > ` })))
		: [];
	for (const { child, path: childPrefix } of children) {
		const shown = visibility(child, context, parameters);
		if (shown.shown) out.push(...rows(child, shown.conditions, versions, allVersions, context, parameters, childPrefix));
	}
	return out;
}

/** The parameters shown for each selector context, merged over the node's versions. */
function parameterTable(description, context, selectorNames) {
	const allVersions = [description.version].flat();
	// Names repeat across operations (every resource has its Operation, many an Order): a condition names the
	// parameter of this context.
	const inContext = (property) => allVersions.some((version) => visibility(property, { ...context, '@version': version }, new Map()).shown);
	const parameters = new Map(description.properties.filter(inContext).map((property) => [property.name, property]));
	const seen = new Map();
	for (const version of allVersions) {
		description.properties.forEach((property, index) => {
			// The selectors themselves (Resource, Operation, Event) are the headings.
			if (selectorNames.includes(property.name) && property.type === 'options') return;
			const { shown, conditions } = visibility(property, { ...context, '@version': version }, parameters);
			if (!shown) return;
			const entry = seen.get(index) ?? { property, conditions, versions: [] };
			entry.versions.push(version);
			seen.set(index, entry);
		});
	}
	const lines = ['| Parameter | Name | Type | Default | Description |', '|---|---|---|---|---|'];
	for (const { property, conditions, versions } of seen.values()) lines.push(...rows(property, conditions, versions, allVersions, context, parameters));
	return seen.size === 0 ? ['No parameters.'] : lines;
}

const selector = (description, name, context = {}) =>
	description.properties.find((property) => property.name === name && property.type === 'options' && visibility(property, context, new Map()).shown);

function renderActionNode(description) {
	const out = [];
	const versions = [description.version].flat();
	out.push(`## ${description.displayName} node`, '');
	out.push(sentence(description.description), '');
	out.push(`Node type \`${description.name}\`; node versions ${versions.join(', ')} (new nodes get ${description.defaultVersion ?? Math.max(...versions)}). Credential: ${description.credentials.map((credential) => code(credential.name)).join(', ')}.`, '');
	const resources = selector(description, 'resource').options;
	out.push('| Resource | Operations |', '|---|---|');
	for (const resource of resources) {
		const operations = selector(description, 'operation', { resource: resource.value })?.options ?? [];
		out.push(`| [${resource.name}](#${slug(resource.name)}) | ${operations.map((operation) => `[${operation.name}](#${slug(`${resource.name}: ${operation.name}`)})`).join(' · ')} |`);
	}
	out.push('');
	for (const resource of resources) {
		out.push(`### ${resource.name}`, '', `${sentence(resource.description)} Value \`${resource.value}\`.`, '');
		const operations = selector(description, 'operation', { resource: resource.value })?.options ?? [];
		for (const operation of operations) {
			out.push(`#### ${resource.name}: ${operation.name}`, '');
			out.push(`${sentence(operation.description)} Action *${operation.action}*, value \`${operation.value}\`.`, '');
			out.push(...parameterTable(description, { resource: resource.value, operation: operation.value }, ['resource', 'operation']), '');
		}
	}
	return out;
}

function renderTrigger(description) {
	const out = [`## ${description.displayName}`, '', sentence(description.description), ''];
	const versions = [description.version].flat();
	const starts = description.polling
		? 'n8n adds its *Poll Times* (default: every minute).'
		: `Started by a ${description.webhooks.map((webhook) => webhook.httpMethod).join(' or ')} to its webhook URL (production and test URLs shown on the node).`;
	out.push(`Node type \`${description.name}\`; node version${versions.length > 1 ? 's' : ''} ${versions.join(', ')}. Credential: ${description.credentials.map((credential) => code(credential.name)).join(', ')}. ${starts}`, '');
	const events = selector(description, 'event');
	if (events === undefined) return [...out, ...parameterTable(description, {}, []), ''];
	for (const event of events.options) {
		out.push(`### Event: ${event.name}`, '', `${sentence(event.description)} Value \`${event.value}\`.`, '');
		out.push(...parameterTable(description, { event: event.value }, ['event']), '');
	}
	return out;
}

function renderCredential(credential) {
	const out = [`## ${credential.displayName} credential`, '', `Credential type \`${credential.name}\`.`, '', '| Parameter | Name | Type | Default | Description |', '|---|---|---|---|---|'];
	for (const property of credential.properties) {
		const secret = property.typeOptions?.password ? ' Stored as a password (never shown).' : '';
		out.push(`| ${cell(property.displayName)} | ${code(property.name)} | ${property.type} | ${cell(formatDefault(property))} | ${cell(`${property.description ? sentence(property.description) : ''}${secret}`)} |`);
	}
	return [...out, ''];
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading) {
	return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The whole page for the package in `root` (its built dist/). */
export function renderOperationsPage(root = REPO_ROOT) {
	const { nodes, credentials } = loadBuilt(root);
	const out = [
		'# Operations reference',
		'',
		`<!-- Generated from the built nodes by scripts/docs/operations.mjs: do not edit. Regenerate: ${REGENERATE} -->`,
		'',
		"Every resource, operation and event, with every parameter as the node describes it to n8n: the name shown, the",
		'internal name (what a saved workflow and an expression use), type, default, description, hint and options.',
		'Parameters of a collection (*Options*, *Filters*, *Additional Fields*) are listed under it as `Collection > Field`.',
		'What each operation does beyond its parameters, and how items and errors are treated: [operations-overview.md](operations-overview.md).',
		'',
	];
	for (const description of nodes) out.push(...(description.properties.some((property) => property.name === 'resource') ? renderActionNode(description) : renderTrigger(description)));
	for (const credential of credentials) out.push(...renderCredential(credential));
	return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const { values: flags } = parseArgs({ options: { check: { type: 'boolean', default: false }, page: { type: 'string', default: PAGE } } });
	const page = path.resolve(flags.page);
	const generated = renderOperationsPage(REPO_ROOT);
	if (flags.check) {
		const committed = existsSync(page) ? readFileSync(page, 'utf8') : '';
		if (committed !== generated) {
			const committedLines = committed.split('\n');
			const firstDifference = generated.split('\n').findIndex((line, index) => line !== committedLines[index]);
			console.error(`${path.relative(REPO_ROOT, page)} is stale: it differs from what the build generates from line ${firstDifference + 1} on. Regenerate it: ${REGENERATE}`);
			process.exit(1);
		}
		console.log(`${path.relative(REPO_ROOT, page)} matches the build.`);
	} else {
		writeFileSync(page, generated);
		console.log(`Wrote ${path.relative(REPO_ROOT, page)} (${generated.split('\n').length} lines) from dist/.`);
	}
}
