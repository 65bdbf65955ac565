import type { INodeProperties } from 'n8n-workflow';

function optionNames(property: INodeProperties | undefined): Record<string, string> {
	const names: Record<string, string> = {};
	for (const option of property?.options ?? []) {
		if ('value' in option && typeof option.value === 'string') names[option.value] = option.name;
	}
	return names;
}

/**
 * The canvas subtitle of a node, as n8n's own nodes show it ("Get Many: Consumption"): display names looked up from
 * the node's own option lists when the description is built, so an operation added later needs nothing here.
 */
export function resourceOperationSubtitle(properties: INodeProperties[]): string {
	const resources = optionNames(properties.find((property) => property.name === 'resource'));
	// Flat lookups ("resource.operation"): a "}}" inside the expression would end it.
	const operations: Record<string, string> = {};
	for (const property of properties) {
		if (property.name !== 'operation') continue;
		for (const resource of (property.displayOptions?.show?.resource ?? []) as string[]) {
			for (const [value, name] of Object.entries(optionNames(property))) operations[`${resource}.${value}`] = name;
		}
	}
	const operation = `(${JSON.stringify(operations)})[$parameter["resource"] + "." + $parameter["operation"]]`;
	return `={{ ${operation} + ": " + (${JSON.stringify(resources)})[$parameter["resource"]] }}`;
}

/** The canvas subtitle of a node that shows one option's display name (e.g. the trigger's event). */
export function optionSubtitle(properties: INodeProperties[], name: string): string {
	return `={{ (${JSON.stringify(optionNames(properties.find((property) => property.name === name)))})[$parameter["${name}"]] }}`;
}
