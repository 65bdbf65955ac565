#!/usr/bin/env node
// The identity gate, run before any publish: by `npm publish` (prepublishOnly) and as the first step of
// .github/workflows/publish.yml (--ci). The package ships with placeholders: an author e-mail under the reserved
// `.invalid` domain (n8n's scanner requires one) and a repository under an owner GitHub cannot have
// (`publisher.invalid`), because no one here owns a mailbox or a repository. Whoever publishes sets their own:
//   node scripts/publish-identity.mjs --set <github-owner>/<repository> "Your Name <you@example.org>"
// which writes author, repository, homepage, bugs and the README's image URLs in one go. The gate refuses to
// publish until they are set and agree with each other, with the README, LICENSE and the publish workflow; in CI
// it also checks the repository is the one the workflow runs in (npm's provenance check refuses any other).
//
//   node scripts/publish-identity.mjs [package.json] [--ci]
//   node scripts/publish-identity.mjs [package.json] --set <owner>/<repository> "<Name> <e-mail>"
// The README, LICENSE and .github/workflows/publish.yml are read beside the given package.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PLACEHOLDER_OWNER = 'publisher.invalid';
const GITHUB_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPOSITORY_NAME = /^[A-Za-z0-9._-]{1,100}$/;
const WORKFLOW_FILE = path.join('.github', 'workflows', 'publish.yml');

/** `owner/name` of a GitHub repository URL (any of npm's spellings), or undefined. */
export function parseGitHubRepository(url) {
	const match = /^(?:git\+)?(?:https:\/\/|ssh:\/\/git@|git:\/\/)github\.com[/:]([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url ?? '');
	return match ? { owner: match[1], name: match[2] } : undefined;
}

/** The URLs that follow from `owner/name`: the package.json fields and the README's image base. */
export function identityUrls({ owner, name }) {
	const web = `https://github.com/${owner}/${name}`;
	return {
		repository: { type: 'git', url: `git+${web}.git` },
		homepage: `${web}#readme`,
		bugs: { url: `${web}/issues` },
		imageBase: `https://raw.githubusercontent.com/${owner}/${name}/main/`,
	};
}

/** Every image of a Markdown file: `![alt](url)` and `<img src="url">`. */
export function readmeImages(markdown) {
	const images = [];
	for (const match of markdown.matchAll(/!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) images.push(match[1]);
	for (const match of markdown.matchAll(/<img\b[^>]*\bsrc=["']([^"']+)["']/gi)) images.push(match[1]);
	return images;
}

function readText(file) {
	return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** What is wrong with the identity of the package in `root` (package.json, README.md, LICENSE, publish workflow). */
export function identityProblems(manifest, root, { ci = false, env = process.env } = {}) {
	const problems = [];
	const { author, homepage, bugs, repository, license, version } = manifest;
	const email = typeof author === 'string' ? (/<([^>]*)>/.exec(author)?.[1] ?? '') : (author?.email ?? '');
	if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) problems.push(`author.email "${email}" is not an e-mail address`);
	else if (/\.invalid$/i.test(email)) problems.push(`author.email "${email}" is the placeholder (reserved .invalid domain)`);

	const repositoryUrl = typeof repository === 'string' ? repository : repository?.url;
	const repo = parseGitHubRepository(repositoryUrl);
	if (!repo) {
		problems.push(`repository.url "${repositoryUrl ?? ''}" is not a GitHub repository URL (git+https://github.com/<owner>/<repository>.git)`);
		return problems;
	}
	if (repo.owner === PLACEHOLDER_OWNER) problems.push(`repository.url "${repositoryUrl}" is the placeholder (owner ${PLACEHOLDER_OWNER})`);
	else if (!GITHUB_NAME.test(repo.owner) || !REPOSITORY_NAME.test(repo.name)) problems.push(`repository.url "${repositoryUrl}" does not name a possible GitHub owner/repository`);

	const expected = identityUrls(repo);
	if (homepage !== expected.homepage) problems.push(`homepage "${homepage ?? ''}" is not the repository's README (${expected.homepage})`);
	const bugsUrl = typeof bugs === 'string' ? bugs : bugs?.url;
	if (bugsUrl !== expected.bugs.url) problems.push(`bugs.url "${bugsUrl ?? ''}" is not the repository's issues (${expected.bugs.url})`);

	if (license !== 'MIT') problems.push(`license "${license ?? ''}" is not MIT`);
	const licenseText = readText(path.join(root, 'LICENSE'));
	if (!licenseText?.startsWith('MIT License')) problems.push('LICENSE is missing or is not the MIT License');

	const readme = readText(path.join(root, 'README.md'));
	if (readme === undefined) problems.push('README.md is missing');
	else {
		for (const image of readmeImages(readme)) {
			// npm's package page shows the packed README on its own: an image must be an absolute URL that serves it.
			if (!image.startsWith(expected.imageBase)) problems.push(`README image "${image}" is not under ${expected.imageBase} (npm's page cannot show it)`);
			else if (!existsSync(path.join(root, decodeURI(image.slice(expected.imageBase.length))))) problems.push(`README image "${image}" names a file the repository does not have`);
		}
		for (const match of readme.matchAll(/https:\/\/(?:github\.com|raw\.githubusercontent\.com)\/([^/\s)]+)\/([^/\s)#]+)/g)) {
			const [, owner, name] = match;
			if (name.replace(/\.git$/, '') === 'n8n-nodes-ollang' && owner !== repo.owner) problems.push(`README links ${match[0]}, another repository than ${repo.owner}/${repo.name}`);
		}
	}

	const workflow = readText(path.join(root, WORKFLOW_FILE));
	if (workflow === undefined) problems.push(`${WORKFLOW_FILE} is missing (npm provenance needs a GitHub Actions publish)`);
	else {
		if (!/^\s*id-token:\s*write\s*$/m.test(workflow)) problems.push(`${WORKFLOW_FILE} does not grant id-token: write (provenance and trusted publishing need it)`);
		if (!workflow.includes('scripts/publish-identity.mjs')) problems.push(`${WORKFLOW_FILE} does not run this identity gate`);
	}

	if (ci) {
		// npm refuses a provenance statement whose source repository is not package.json's repository.
		const running = env.GITHUB_REPOSITORY ?? '';
		if (running.toLowerCase() !== `${repo.owner}/${repo.name}`.toLowerCase()) problems.push(`this workflow runs in "${running}", but repository.url names ${repo.owner}/${repo.name}`);
		// Trusted publishing is granted to one workflow file.
		const workflowRef = env.GITHUB_WORKFLOW_REF ?? '';
		if (!workflowRef.includes(`/${WORKFLOW_FILE.split(path.sep).join('/')}@`)) problems.push(`the running workflow "${workflowRef}" is not ${WORKFLOW_FILE}`);
		if (env.GITHUB_REF_TYPE === 'tag') {
			const changelog = readText(path.join(root, 'CHANGELOG.md')) ?? '';
			if (!new RegExp(`^#{2,4} \\[?${version.replace(/\./g, '\\.')}\\]?`, 'm').test(changelog)) problems.push(`CHANGELOG.md has no section for ${version}`);
		}
	}
	return problems;
}

/** Writes the publisher's identity: author, repository, homepage, bugs in package.json and the README's image URLs. */
export function setIdentity(packageFile, ownerAndName, author) {
	const [owner, name] = ownerAndName.split('/');
	if (!owner || !name || !GITHUB_NAME.test(owner) || !REPOSITORY_NAME.test(name)) throw new Error(`"${ownerAndName}" is not <github-owner>/<repository>`);
	const manifest = JSON.parse(readFileSync(packageFile, 'utf8'));
	const previous = parseGitHubRepository(typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url);
	const { repository, homepage, bugs, imageBase } = identityUrls({ owner, name });
	Object.assign(manifest, { repository, homepage, bugs });
	if (author) {
		const match = /^\s*(.*?)\s*<([^>]+)>\s*$/.exec(author);
		if (!match) throw new Error(`"${author}" is not "Your Name <you@example.org>"`);
		manifest.author = { name: match[1], email: match[2] };
	}
	writeFileSync(packageFile, `${JSON.stringify(manifest, null, 2)}\n`);
	const readmeFile = path.join(path.dirname(packageFile), 'README.md');
	if (previous && existsSync(readmeFile)) {
		// Image URLs (raw.githubusercontent.com) and links (github.com) of the previous repository name the new one.
		let readme = readFileSync(readmeFile, 'utf8').split(identityUrls(previous).imageBase).join(imageBase);
		readme = readme.split(`https://github.com/${previous.owner}/${previous.name}`).join(`https://github.com/${owner}/${name}`);
		writeFileSync(readmeFile, readme);
	}
}

function main(argv) {
	const ci = argv.includes('--ci');
	const setAt = argv.indexOf('--set');
	const positional = argv.filter((arg, index) => !arg.startsWith('--') && (setAt < 0 || index < setAt));
	const packageFile = path.resolve(positional[0] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'package.json'));
	if (setAt >= 0) {
		setIdentity(packageFile, argv[setAt + 1] ?? '', argv[setAt + 2]);
		console.log(`Set the identity in ${packageFile} and README.md; check it with: node scripts/publish-identity.mjs`);
	}
	const manifest = JSON.parse(readFileSync(packageFile, 'utf8'));
	const problems = identityProblems(manifest, path.dirname(packageFile), { ci });
	if (problems.length > 0) {
		console.error(
			`Not publishing:\n- ${problems.join('\n- ')}\nSet the publisher's identity first: node scripts/publish-identity.mjs --set <github-owner>/<repository> "Your Name <you@example.org>"`,
		);
		process.exit(1);
	}
	console.log(`Publishing ${manifest.name}@${manifest.version} as ${typeof manifest.author === 'string' ? manifest.author : manifest.author.email}, from ${manifest.repository.url ?? manifest.repository}.`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
