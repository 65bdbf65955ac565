// Reading the Markdown of README.md, CONTRIBUTING.md and docs/: headings' anchors by GitHub's rules, links, and the
// pages the docs checks read (test/tools/docsLinks.test.cts, test/tools/docsWords.test.cts).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const OWN_REPOSITORY = /^https:\/\/(?:github\.com\/[^/]+\/n8n-nodes-ollang\/(?:blob|tree)\/[^/]+|raw\.githubusercontent\.com\/[^/]+\/n8n-nodes-ollang\/[^/]+)\/(.*)$/;

/** GitHub's anchor of a heading's text. */
export function githubSlug(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
		.replace(/<[^>]+>/g, '') // inline HTML
		.replace(/[*_`~]/g, (mark) => (mark === '_' ? '_' : ''));
	return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings, repeated ones numbered as GitHub numbers them. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const counts = new Map<string, number>();
	for (const line of withoutCode(markdown).split('\n')) {
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const base = githubSlug(heading[1]);
		const seen = counts.get(base) ?? 0;
		counts.set(base, seen + 1);
		anchors.add(seen === 0 ? base : `${base}-${seen}`);
	}
	for (const match of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]);
	return anchors;
}

/** The text without fenced code blocks and inline code, where brackets are not links. */
function withoutCode(markdown: string): string {
	return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** Every link target (and image source) of a Markdown text, with its line. */
export function linksOf(markdown: string): Array<{ target: string; line: number }> {
	const links: Array<{ target: string; line: number }> = [];
	withoutCode(markdown)
		.split('\n')
		.forEach((text, index) => {
			for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: match[1], line: index + 1 });
			for (const match of text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)) links.push({ target: match[1], line: index + 1 });
		});
	return links;
}

/** What is wrong with each link of `file` (a path relative to `root`). */
export function brokenLinks(root: string, file: string): string[] {
	const problems: string[] = [];
	const source = readFileSync(path.join(root, file), 'utf8');
	for (const { target, line } of linksOf(source)) {
		const own = OWN_REPOSITORY.exec(target);
		if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !own) continue; // another site, mailto:
		const [rawPath, anchor] = (own ? own[1] : target).split('#') as [string, string | undefined];
		const linked = own ? path.join(root, decodeURIComponent(rawPath)) : rawPath === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(rawPath));
		const where = `${file}:${line} links ${target}`;
		if (!existsSync(linked)) {
			problems.push(`${where}: ${path.relative(root, linked)} does not exist`);
			continue;
		}
		if (anchor === undefined || anchor === '') continue;
		if (statSync(linked).isDirectory() || !linked.endsWith('.md')) problems.push(`${where}: an anchor into a file that is not Markdown`);
		else if (!anchorsOf(readFileSync(linked, 'utf8')).has(anchor)) problems.push(`${where}: ${path.relative(root, linked)} has no heading with the anchor #${anchor}`);
	}
	return problems;
}

/** The Markdown pages under `folder` (relative to `root`), subfolders too (docs/internals/), as posix paths. */
function markdownUnder(root: string, folder: string): string[] {
	return readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
		const file = path.posix.join(folder, entry.name);
		if (entry.isDirectory()) return markdownUnder(root, file);
		return entry.name.endsWith('.md') ? [file] : [];
	});
}

/** The pages the check reads: README.md, CONTRIBUTING.md and every Markdown page under docs/, subfolders too. */
export function checkedPages(root: string): string[] {
	return ['README.md', 'CONTRIBUTING.md', ...markdownUnder(root, 'docs').sort()].filter((file) => existsSync(path.join(root, file)));
}
