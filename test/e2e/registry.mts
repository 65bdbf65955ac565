// A real npm registry on this machine for the install suite: verdaccio from npm on a free loopback port,
// its storage in a temporary folder, proxying the machine's npm registry for any package it does not hold itself.
// This package is never proxied: it exists only as published here. Publishing goes to this registry and nowhere
// else: `publish` refuses any URL but the loopback one of a registry this process started.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { Socket } from 'node:net';
import path from 'node:path';

import { CACHED_TOOLS, ensureCachedTool, ensureRuntime } from '../../scripts/n8n/runtime.mjs';
import { forEachLine, freePort, spawnGroup, stopGroup } from '../../scripts/n8n/process.mjs';
import { waitFor } from './harness.mts';

/** verdaccio, installed into the cache rather than as a devDependency (scripts/n8n/install.mjs CACHED_TOOLS says why). */
const VERDACCIO = CACHED_TOOLS.verdaccio;
/** The registries this module ever started, by URL: the only ones `publish` accepts. */
const startedRegistries = new Set<string>();

/** The registry the machine's npm uses (npm config), for what the local registry does not hold. */
function machineRegistry(): string {
	const result = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' });
	return result.stdout.trim() || 'https://registry.npmjs.org/';
}

/**
 * Refuses to publish anywhere but a registry this process started on the loopback interface; a guard in code, so
 * no change to a test can publish to a real registry by mistake.
 */
export function assertLocalRegistry(registryUrl: string): URL {
	const url = new URL(registryUrl);
	if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1' || !startedRegistries.has(url.origin)) {
		throw new Error(`refusing to publish to ${registryUrl}: only a local registry this test started (http://127.0.0.1:<port>) is allowed`);
	}
	return url;
}

export class LocalRegistry {
	private constructor(
		readonly url: string,
		private readonly dir: string,
		private readonly token: string,
		private child: ReturnType<typeof spawnGroup> | undefined,
		readonly log: string[],
	) {}

	/** Starts verdaccio with its storage under `dir`; a user is registered for publishing. */
	static async start(dir: string): Promise<LocalRegistry> {
		mkdirSync(dir, { recursive: true });
		const log: string[] = [];
		const { url, child } = await LocalRegistry.launch(dir, log);
		// npm adduser's request: verdaccio's htpasswd plugin creates the user and answers a token.
		const response = await fetch(new URL('/-/user/org.couchdb.user:e2e-publisher', url), {
			method: 'PUT',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ name: 'e2e-publisher', password: 'e2e-local-only', email: 'e2e@example.org', type: 'user' }),
		});
		const answer = (await response.json()) as { token?: string };
		if (!response.ok || !answer.token) throw new Error(`verdaccio did not register the publisher: HTTP ${response.status} ${JSON.stringify(answer)}`);
		return new LocalRegistry(url, dir, answer.token, child, log);
	}

	private static async launch(dir: string, log: string[]): Promise<{ url: string; child: ReturnType<typeof spawnGroup> }> {
		const port = await freePort();
		const url = `http://127.0.0.1:${port}`;
		const config = path.join(dir, 'config.yaml');
		writeFileSync(
			config,
			[
				`storage: ${JSON.stringify(path.join(dir, 'storage'))}`,
				'auth:',
				'  htpasswd:',
				`    file: ${JSON.stringify(path.join(dir, 'htpasswd'))}`,
				'    max_users: 10',
				'uplinks:',
				'  machine:',
				`    url: ${JSON.stringify(machineRegistry())}`,
				'packages:',
				"  'n8n-nodes-ollang':",
				'    access: $all',
				'    publish: $authenticated',
				"  '**':",
				'    access: $all',
				'    publish: $authenticated',
				'    proxy: machine',
				'web:',
				'  enable: false',
				'log: { type: stdout, format: json, level: warn }',
				'',
			].join('\n'),
		);
		// verdaccio 6 needs Node 22 or later: it runs on the Node 24 the scripts install for n8n.
		const { nodeBin } = await ensureRuntime();
		const verdaccio = await ensureCachedTool(VERDACCIO.name, VERDACCIO.version, { overrides: VERDACCIO.overrides });
		const child = spawnGroup(nodeBin, [path.join(verdaccio, 'bin', 'verdaccio'), '--config', config, '--listen', `127.0.0.1:${port}`], {
			cwd: dir,
			// The machine's CA bundle, for the uplink (the same one npm is configured with).
			env: { ...process.env, NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt' },
		});
		forEachLine(child, (line) => log.push(line));
		startedRegistries.add(new URL(url).origin);
		await waitFor(
			`verdaccio on ${url}`,
			async () => {
				if (child.exitCode !== null) throw new Error(`verdaccio exited: ${log.join('\n').slice(-2000)}`);
				return await fetch(new URL('/-/ping', url)).then((response) => response.ok, () => false);
			},
			{ timeoutMs: 60_000 },
		);
		return { url, child };
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	/** Stops verdaccio (its process group, by id). */
	async stop(): Promise<void> {
		const child = this.child;
		this.child = undefined;
		if (child) await stopGroup(child);
	}

	/** Starts it again on a new port with the same storage; returns the new URL. */
	async restart(): Promise<string> {
		await this.stop();
		const { url, child } = await LocalRegistry.launch(this.dir, this.log);
		this.child = child;
		(this as { url: string }).url = url;
		return url;
	}

	/** `npm publish` of a tarball or package folder to this registry, and only to it (scripts off, no provenance). */
	async publish(target: string): Promise<void> {
		const registry = assertLocalRegistry(this.url);
		const userconfig = path.join(this.dir, 'publisher.npmrc');
		// Its own npmrc: the token for this registry only, nothing of the machine's configuration.
		writeFileSync(userconfig, `//${registry.host}/:_authToken=${this.token}\n`, { mode: 0o600 });
		const result = spawnSync(
			'npm',
			['publish', target, `--registry=${registry.origin}/`, `--userconfig=${userconfig}`, '--ignore-scripts', '--provenance=false', '--access=public', '--loglevel=warn'],
			{ encoding: 'utf8', env: { ...process.env, NPM_CONFIG_PROVENANCE: 'false', npm_config_registry: `${registry.origin}/` } },
		);
		if (result.status !== 0) throw new Error(`npm publish ${target} to ${registry.origin} failed: ${result.stdout}${result.stderr}`);
	}

	/** The versions of a package this registry holds. */
	async versions(name: string): Promise<string[]> {
		const response = await fetch(new URL(`/${encodeURIComponent(name)}`, this.url));
		if (response.status === 404) return [];
		return Object.keys(((await response.json()) as { versions?: Record<string, unknown> }).versions ?? {});
	}
}

/**
 * A loopback HTTP proxy in front of the registry, so n8n keeps one registry URL while the registry behind it is
 * stopped and started again. With `stopRegistryOnTarball` set, the first tarball request stops the registry (by
 * process id) and is cut off, as when the registry goes down in the middle of an install.
 */
export class RegistryProxy {
	stopRegistryOnTarball: LocalRegistry | undefined;
	tarballRequests = 0;
	private readonly sockets = new Set<Socket>();

	private constructor(
		private readonly server: http.Server,
		readonly url: string,
		public target: string,
	) {}

	static async start(target: string): Promise<RegistryProxy> {
		const port = await freePort();
		let proxy: RegistryProxy;
		const server = http.createServer((request, response) => void proxy.forward(request, response));
		proxy = new RegistryProxy(server, `http://127.0.0.1:${port}`, target);
		server.on('connection', (socket) => {
			proxy.sockets.add(socket);
			socket.once('close', () => proxy.sockets.delete(socket));
		});
		await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
		return proxy;
	}

	private async forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
		const isTarball = (request.url ?? '').includes('/-/') && (request.url ?? '').endsWith('.tgz');
		if (isTarball) this.tarballRequests++;
		if (isTarball && this.stopRegistryOnTarball) {
			const registry = this.stopRegistryOnTarball;
			this.stopRegistryOnTarball = undefined;
			await registry.stop();
		}
		// The client's Host header is kept: verdaccio builds the tarball URLs of its answers from it, so npm downloads
		// the tarball through this proxy too.
		const upstream = http.request(new URL(request.url ?? '/', this.target), { method: request.method, headers: request.headers }, (answer) => {
			response.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(response);
		});
		// The registry is gone: the connection is cut, as a client of a stopped registry sees it.
		upstream.on('error', () => request.socket.destroy());
		request.pipe(upstream);
	}

	async stop(): Promise<void> {
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

/**
 * Unpacks a tarball into `dir` and sets `version` in its package.json: the same package as a later release, for
 * `publish`. Nothing in the repository changes. Returns the folder.
 */
export function laterVersionOf(tarball: string, dir: string, version: string): string {
	mkdirSync(dir, { recursive: true });
	const untar = spawnSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], { encoding: 'utf8' });
	if (untar.status !== 0) throw new Error(`unpacking ${tarball}: ${untar.stderr}`);
	const manifestFile = path.join(dir, 'package.json');
	writeFileSync(manifestFile, `${JSON.stringify({ ...JSON.parse(readFileSync(manifestFile, 'utf8')), version }, null, 2)}\n`);
	return dir;
}
