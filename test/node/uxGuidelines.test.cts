// n8n's UX guidelines for community nodes and its "Node UI design" standards, the rules a machine can check, over
// the descriptions as n8n receives them (the three nodes and the credential). n8n's reviewers check the same before
// verifying a package. The rules that need judgment (vocabulary, terminology) are in the README's audit. And our own
// rule: the panel speaks of what a user decides and gets, never of the machinery behind it (test/tools/userWords.cts).
import type { ICredentialType, INodeProperties, INodePropertyCollection, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { OllangApi } from '../../credentials/OllangApi.credentials';
import { Ollang } from '../../nodes/Ollang/Ollang.node';
import { OllangCallbackTrigger } from '../../nodes/OllangCallbackTrigger/OllangCallbackTrigger.node';
import { OllangTrigger } from '../../nodes/OllangTrigger/OllangTrigger.node';
import { MECHANISM_WORDS, mechanismWordsIn } from '../tools/userWords.cts';

const nodes: INodeTypeDescription[] = [new Ollang().description, new OllangTrigger().description, new OllangCallbackTrigger().description];
const credential: ICredentialType = new OllangApi();

/** Words title case leaves in lower case when they are not the first. */
const SMALL_WORDS = new Set(['a', 'an', 'the', 'and', 'but', 'or', 'nor', 'for', 'of', 'in', 'on', 'at', 'to', 'by', 'per', 'from', 'with', 'as', 'via', 'into', 'vs']);
/** Proper nouns and product words a sentence keeps capitalised (all-capitals words such as API, XLSX, QC pass anyway). */
const PROPER_NOUNS = new Set(['Ollang', 'Figma', 'WebVTT', 'OpenAI', 'Unicode', 'English', 'German', 'French', 'Spanish', 'Portuguese', 'Markdown', 'Settings', 'Continue']);

interface Text {
	where: string;
	text: string;
}

/** A parameter, with where it sits ("Ollang › Order › Get › Order ID"). */
interface Located {
	where: string;
	property: INodeProperties;
}

function scopeOf(property: INodeProperties): string {
	const show = property.displayOptions?.show ?? {};
	const parts = ['resource', 'operation', 'event'].flatMap((key) => ((show[key] as string[] | undefined) ?? []).slice(0, 1));
	return parts.length > 0 ? ` [${parts.join('.')}]` : '';
}

/** Every parameter, nested ones (collections, fixed collections) included. */
function allProperties(properties: INodeProperties[], prefix: string): Located[] {
	return properties.flatMap((property) => {
		const where = `${prefix} › ${property.displayName}${scopeOf(property)}`;
		const nested = (property.options ?? []).flatMap((option) => {
			if ('values' in option) return allProperties((option as INodePropertyCollection).values, `${where} › ${(option as INodePropertyCollection).displayName}`);
			if ('type' in option) return allProperties([option as INodeProperties], where);
			return [];
		});
		return [{ where, property }, ...nested];
	});
}

const parameters: Located[] = [
	...nodes.flatMap((node) => allProperties(node.properties, node.displayName)),
	...allProperties(credential.properties, credential.displayName),
];

/** Drop-down entries of options and multi-options parameters. */
function dropDownOptions({ property }: Located): INodePropertyOptions[] {
	if (property.type !== 'options' && property.type !== 'multiOptions') return [];
	return (property.options ?? []).filter((option): option is INodePropertyOptions => 'value' in option && !('type' in option));
}

const titleCaseTexts: Text[] = [
	...nodes.map((node) => ({ where: `${node.displayName}: node name`, text: node.displayName })),
	{ where: 'credential name', text: credential.displayName },
	...parameters.filter(({ property }) => property.type !== 'notice').map(({ where, property }) => ({ where: `${where}: parameter name`, text: property.displayName })),
	...parameters.flatMap((located) => dropDownOptions(located).map((option) => ({ where: `${located.where}: option "${option.name}"`, text: option.name }))),
	...parameters.flatMap(({ where, property }) => (property.modes ?? []).map((mode) => ({ where: `${where}: mode`, text: mode.displayName }))),
	...parameters.flatMap(({ where, property }) =>
		(property.options ?? []).filter((option): option is INodePropertyCollection => 'values' in option).map((group) => ({ where: `${where}: group`, text: group.displayName })),
	),
	...parameters
		.filter(({ property }) => ['collection', 'fixedCollection'].includes(property.type) && property.placeholder)
		.map(({ where, property }) => ({ where: `${where}: button`, text: String(property.placeholder) })),
];

const sentenceCaseTexts: Text[] = [
	...nodes.map((node) => ({ where: `${node.displayName}: node description`, text: node.description })),
	...parameters.flatMap(({ where, property }) => [
		...(property.type === 'notice' ? [{ where: `${where}: notice`, text: property.displayName }] : []),
		...(property.description ? [{ where: `${where}: description`, text: property.description }] : []),
		...(property.hint ? [{ where: `${where}: hint`, text: property.hint }] : []),
	]),
	...parameters.flatMap((located) =>
		dropDownOptions(located).flatMap((option) => [
			...(option.description ? [{ where: `${located.where}: "${option.name}" description`, text: option.description }] : []),
			...(option.action ? [{ where: `${located.where}: "${option.name}" action`, text: option.action }] : []),
		]),
	),
];

/** Each word (parts of hyphenated words apart) capitalised, small words aside; codes and units in brackets pass. */
function titleCaseViolations(text: string): string[] {
	const words = text.split(/\s+/).filter(Boolean);
	return words.flatMap((word, index) => {
		const bare = word.replace(/^[("'‘“]+|[)"'’”:,.?]+$/g, '');
		if (!/[A-Za-z]/.test(bare) || /^[0-9]/.test(bare)) return [];
		if (index > 0 && SMALL_WORDS.has(bare)) return [];
		return bare.split('-').filter((part) => part !== '' && !/^[A-Z0-9]/.test(part)).map(() => word);
	});
}

/** Text between quotes or code marks, which may name things as they are spelled elsewhere. */
function withoutQuoted(text: string): string {
	// n8n's own settings are named as n8n spells them.
	return text.replace(/"[^"]*"|'[^']*'|`[^`]*`|‘[^’]*’|“[^”]*”|Retry On Fail|Continue On Fail|Always Output Data|Execute Once/g, ' ');
}

/** Names of our own parameters, options and resources, which a sentence may refer to by their capitalised name. */
const ownNames = new Set(
	[...titleCaseTexts.map(({ text }) => text)].flatMap((name) => [name, ...name.split(/\s+/)]),
);

/**
 * Sentence case: a capital first letter, and after it capitals only for proper nouns, all-capital terms (API, XLSX),
 * the start of a new sentence, quoted text, and our own UI names a text refers to ("Memory > Import Items").
 */
function sentenceCaseViolations(text: string): string[] {
	const violations: string[] = [];
	if (!/^[A-Z0-9"'`(]/.test(text)) violations.push(`starts with "${text.slice(0, 12)}"`);
	const words = withoutQuoted(text).split(/\s+/).filter(Boolean);
	words.forEach((word, index) => {
		if (index === 0) return;
		const previous = words[index - 1];
		if (/[.!?:;]$/.test(previous) && !/^(e\.g|i\.e)\.$/.test(previous)) return;
		const bare = word.replace(/^[("'(]+|[)"',.;:?!]+$/g, '');
		if (!/^[A-Z]/.test(bare)) return;
		if (/^[A-Z0-9:]+(s|'s)?$/.test(bare) || /^[A-Z][A-Z0-9]*[-/][A-Za-z0-9-/]+$/.test(bare) || /[a-z][A-Z]/.test(bare)) return; // API, IDs, ISO-639, camelCase field names
		const name = bare.replace(/'s$/, ''); // Ollang's, the Callback Trigger's
		if (PROPER_NOUNS.has(name) || ownNames.has(name)) return;
		violations.push(word);
	});
	return violations;
}

/** n8n's standard: no period after a one-sentence tooltip or info box; one after each of several sentences. */
function periodViolation(text: string): string | undefined {
	const masked = text.replace(/\b(e\.g|i\.e|etc|vs)\./g, '$1').replace(/\d\.\d/g, '0');
	const sentences = masked.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/).filter(Boolean);
	const endsWithPeriod = /\.$/.test(masked.trim());
	if (sentences.length === 1 && endsWithPeriod) return 'one sentence ends with a period';
	if (sentences.length > 1 && !/[.!?)]$/.test(masked.trim())) return 'several sentences without a final period';
	return undefined;
}

describe('UX guidelines: text case', () => {
	it('tells title case and sentence case apart (the checks below can fail)', () => {
		expect(titleCaseViolations('Get many orders')).toEqual(['many', 'orders']);
		expect(titleCaseViolations('Look-back Days of the Order (Seconds)')).toEqual(['Look-back']);
		expect(sentenceCaseViolations('get orders')).toHaveLength(1);
		expect(sentenceCaseViolations('Orders Whose Payment Arrived Yesterday')).toEqual(['Whose', 'Payment', 'Arrived', 'Yesterday']);
		expect(sentenceCaseViolations('Runs Memory > Import Items for "Any Text". Then it waits for Figma')).toEqual([]);
		expect(periodViolation('One sentence.')).toBeDefined();
		expect(periodViolation('First sentence. Second one')).toBeDefined();
		expect(periodViolation('First sentence, e.g. this. Second one.')).toBeUndefined();
	});

	it('uses title case for node names, parameter names, drop-down values, locator modes and buttons', () => {
		expect(titleCaseTexts.length).toBeGreaterThan(300);
		const offending = titleCaseTexts.flatMap(({ where, text }) => titleCaseViolations(text).map((word) => `${where}: "${word}" in "${text}"`));
		expect(offending).toEqual([]);
	});

	it('uses title case for the canvas subtitles (the operation and resource names they show)', () => {
		const [ollang, trigger] = nodes;
		// "Get Many: Order": the subtitle shows the display names of the chosen operation and resource.
		expect(ollang.subtitle).toMatch(/\$parameter\["operation"\]/);
		const shown = [...String(ollang.subtitle).matchAll(/"([^"]+)"/g)].map((match) => match[1]).filter((text) => !/^[a-z][A-Za-z]*(\.[a-zA-Z]+)?$/.test(text) && text !== ': ');
		expect(shown.length).toBeGreaterThan(60);
		expect(shown.flatMap((text) => titleCaseViolations(text).map((word) => `"${word}" in "${text}"`))).toEqual([]);
		expect(trigger.subtitle).toMatch(/\$parameter\["event"\]/);
	});

	it('uses sentence case for actions, descriptions, hints and notices', () => {
		expect(sentenceCaseTexts.length).toBeGreaterThan(300);
		const offending = sentenceCaseTexts.flatMap(({ where, text }) => sentenceCaseViolations(text).map((word) => `${where}: ${word} in "${text}"`));
		expect(offending).toEqual([]);
	});

	it('ends tooltips and notices with a period only when they have more than one sentence', () => {
		const checked = sentenceCaseTexts.filter(({ where }) => /: (description|notice)$/.test(where) && !/: node description$/.test(where));
		const offending = checked.flatMap(({ where, text }) => {
			const violation = periodViolation(text);
			return violation ? [`${where}: ${violation}: "${text}"`] : [];
		});
		expect(offending).toEqual([]);
	});

	it('keeps articles out of actions and names the resource in each', () => {
		const [ollang] = nodes;
		const resources = new Map(
			((ollang.properties.find((property) => property.name === 'resource')?.options ?? []) as INodePropertyOptions[]).map((option) => [String(option.value), option.name]),
		);
		const offending = ollang.properties
			.filter((property) => property.name === 'operation')
			.flatMap((selector) => {
				const [resource] = selector.displayOptions?.show?.resource as string[];
				return (selector.options as INodePropertyOptions[]).flatMap((option) => {
					const action = String(option.action);
					const problems = [];
					if (/\b(a|an|the)\b/i.test(action)) problems.push('has an article');
					// The resource's word ("order", "memory"/"memories"), or the operation's own object where it names one
					// ("Get Languages" of Locale): the guidelines want the action to say what it acts on.
					const stem = (name: string) => name.toLowerCase().split(' ').pop()!.replace(/(y|s)$/, '');
					const objects = [stem(String(resources.get(resource))), ...(option.name.includes(' ') ? [stem(option.name)] : [])];
					if (!objects.some((object) => action.toLowerCase().includes(object))) problems.push(`names neither the resource nor its object (${objects.join(', ')})`);
					return problems.map((problem) => `${resource}.${String(option.value)}: "${action}" ${problem}`);
				});
			});
		expect(offending).toEqual([]);
	});

	it('starts the description of every boolean with "Whether"', () => {
		const booleans = parameters.filter(({ property }) => property.type === 'boolean');
		expect(booleans.length).toBeGreaterThan(10);
		expect(booleans.filter(({ property }) => !/^Whether /.test(property.description ?? '')).map(({ where, property }) => `${where}: "${property.description}"`)).toEqual([]);
	});

	it('names no mechanism of ours in any text of the panel (names, descriptions, hints, notices, options, placeholders)', () => {
		// The check can fail: it finds a word of the list, whole, in any case, and leaves other words alone.
		expect(mechanismWordsIn('A Sweep of the API emits what the claim missed')).toEqual(['claim', 'sweep']);
		expect(mechanismWordsIn('Stores, sweeping and claimed')).toEqual([]);
		expect(MECHANISM_WORDS.length).toBeGreaterThan(10);
		const placeholders: Text[] = parameters.flatMap(({ where, property }) => [
			...(property.placeholder ? [{ where: `${where}: placeholder`, text: String(property.placeholder) }] : []),
			...(property.modes ?? []).filter((mode) => mode.placeholder).map((mode) => ({ where: `${where}: ${mode.displayName} placeholder`, text: String(mode.placeholder) })),
		]);
		const subtitles: Text[] = nodes.map((node) => ({ where: `${node.displayName}: subtitle`, text: String(node.subtitle ?? '') }));
		const texts = [...titleCaseTexts, ...sentenceCaseTexts, ...placeholders, ...subtitles];
		expect(texts.length).toBeGreaterThan(1000);
		const offending = texts.flatMap(({ where, text }) => {
			const words = mechanismWordsIn(text);
			return words.length > 0 ? [`${where}: ${words.join(', ')} in "${text}"`] : [];
		});
		expect(offending).toEqual([]);
	});

	it('names the trigger\'s event parameter "Trigger On", without a tooltip', () => {
		const event = nodes[1].properties.find((property) => property.name === 'event');
		expect([event?.displayName, event?.description]).toEqual(['Trigger On', undefined]);
	});
});

/**
 * Single-item IDs that are not a resource locator with From list first, with the reason. Every other parameter
 * naming one item by its ID is such a locator.
 */
const IDS_WITHOUT_LIST: Record<string, string> = {
	jobId: 'the API cannot list import jobs (only read one by its ID)',
	elementId: "not an item to pick: a translation unit's own element key, written with the unit",
	translatorId: 'the API offers no list of translators',
	fileKey: 'a Figma file key or URL, from Figma itself (the API lists no files)',
};

describe('UX guidelines: structure', () => {
	const ollang = nodes[0];
	const operations = ollang.properties
		.filter((property) => property.name === 'operation')
		.flatMap((selector) =>
			(selector.options as INodePropertyOptions[]).map((option) => ({ resource: (selector.displayOptions?.show?.resource as string[])[0], option })),
		);
	const parametersOf = (resource: string, operation: string) =>
		ollang.properties.filter((property) => {
			const show = property.displayOptions?.show;
			return (show?.resource as string[] | undefined)?.includes(resource) && (show?.operation as string[] | undefined)?.includes(operation);
		});

	it('offers Return All and Limit on every Get Many operation', () => {
		const getMany = operations.filter(({ option }) => /^Get Many\b/.test(option.name) || String(option.value).startsWith('getMany'));
		expect(getMany.length).toBeGreaterThanOrEqual(8);
		const offending = getMany.flatMap(({ resource, option }) => {
			const names = parametersOf(resource, String(option.value)).map((property) => `${property.name}:${property.type}`);
			const key = `${resource}.${String(option.value)}`;
			const complete = names.includes('returnAll:boolean') && names.includes('limit:number');
			return complete ? [] : [key];
		});
		expect(offending).toEqual([]);
	});

	it('picks single items with a resource locator whose first mode is From list, where the API offers a list', () => {
		const idParameters = parameters.filter(({ property }) => /Id$/.test(property.name) && property.type !== 'notice');
		expect(idParameters.length).toBeGreaterThan(20);
		const offending = idParameters.flatMap(({ where, property }) => {
			if (property.type === 'resourceLocator') {
				const [first] = property.modes ?? [];
				return first?.name === 'list' && first.displayName === 'From List' ? [] : [`${where}: first mode is ${first?.name}`];
			}
			const scope = /\[([\w.]+)\]/.exec(where)?.[1];
			const excepted = property.name in IDS_WITHOUT_LIST || `${scope} ${property.name}` in IDS_WITHOUT_LIST;
			return excepted ? [] : [`${where}: ${property.type}, not a resource locator`];
		});
		expect(offending).toEqual([]);
		// Each exception is a plain parameter that exists.
		for (const key of Object.keys(IDS_WITHOUT_LIST)) {
			const [scope, name] = key.includes(' ') ? key.split(' ') : [undefined, key];
			const found = parameters.filter(({ where, property }) => property.name === name && (!scope || where.includes(`[${scope}]`)));
			expect({ key, types: [...new Set(found.map(({ property }) => property.type))] }).toEqual({ key, types: ['string'] });
		}
	});

	it('keeps every secret in a password field', () => {
		// Credentials and tokens; not a Figma file key, an instruction's machine key or an idempotency key.
		const secrets = parameters.filter(({ property }) => /(api|access|private|secret)Key|secret|token|password/i.test(property.name) && property.type === 'string');
		expect(secrets.map(({ property }) => property.name)).toContain('apiKey');
		expect(secrets.filter(({ property }) => property.typeOptions?.password !== true).map(({ where }) => where)).toEqual([]);
	});
});
