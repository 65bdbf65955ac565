// The publish guard: the shipped package.json carries a placeholder identity that n8n's scanner accepts and npm
// publish refuses, until the publisher sets their own.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const guard = path.join(repoRoot, 'scripts', 'publish-identity.mjs');
const shipped = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

function runGuard(packageJson: Record<string, unknown>) {
	const dir = mkdtempSync(path.join(tmpdir(), 'publish-identity-'));
	try {
		const file = path.join(dir, 'package.json');
		writeFileSync(file, JSON.stringify(packageJson));
		const result = spawnSync(process.execPath, [guard, file], { encoding: 'utf8' });
		return { status: result.status, output: `${result.stdout}${result.stderr}` };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

describe('publish identity guard (npm publish runs it as prepublishOnly)', () => {
	it('is wired to npm publish', () => {
		expect(shipped.scripts.prepublishOnly).toBe('node scripts/publish-identity.mjs');
	});

	it('refuses the shipped placeholder, naming the field', () => {
		const { status, output } = runGuard(shipped);
		expect(status).toBe(1);
		expect(output).toContain('author.email "publisher@n8n-nodes-ollang.invalid" is the placeholder');
		expect(output).toContain('npm pkg set');
	});

	it('accepts a publisher identity, in the object and the string form', () => {
		expect(runGuard({ ...shipped, author: { name: 'A Publisher', email: 'a.publisher@example.org' } }).status).toBe(0);
		expect(runGuard({ ...shipped, author: 'A Publisher <a.publisher@example.org>' }).status).toBe(0);
	});

	it('refuses a missing e-mail and a homepage that is not https', () => {
		const noEmail = runGuard({ ...shipped, author: { name: 'A Publisher' } });
		expect(noEmail.status).toBe(1);
		expect(noEmail.output).toContain('author.email "" is not an e-mail address');
		const plainHomepage = runGuard({ ...shipped, author: 'P <p@example.org>', homepage: 'http://example.org' });
		expect(plainHomepage.status).toBe(1);
		expect(plainHomepage.output).toContain('homepage "http://example.org" is not an https URL');
	});
});
