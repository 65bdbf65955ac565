#!/usr/bin/env node
// Run by `npm publish` (prepublishOnly). The package ships with a placeholder author e-mail under the reserved
// `.invalid` domain: no one here owns a mailbox or a repository for it, and n8n's scanner requires an author e-mail.
// Whoever publishes sets their own identity first; this refuses to publish until they have.
//   npm pkg set author.name="Your Name" author.email=you@example.org
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageFile = process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'package.json');
const { author, homepage } = JSON.parse(readFileSync(packageFile, 'utf8'));
const email = typeof author === 'string' ? (/<([^>]*)>/.exec(author)?.[1] ?? '') : (author?.email ?? '');
const problems = [];
if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) problems.push(`author.email "${email}" is not an e-mail address`);
else if (/\.invalid$/i.test(email)) problems.push(`author.email "${email}" is the placeholder (reserved .invalid domain)`);
if (typeof homepage !== 'string' || !/^https:\/\//.test(homepage)) problems.push(`homepage "${homepage ?? ''}" is not an https URL`);
if (problems.length > 0) {
	console.error(
		`Not publishing: ${problems.join('; ')}.\nSet the publisher's identity first: npm pkg set author.name="Your Name" author.email=you@example.org`,
	);
	process.exit(1);
}
console.log(`Publishing as ${email}.`);
