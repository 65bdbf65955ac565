// docker/docker-compose.yml is what n8n 3.0 users deploy (Docker only): it must run queue mode the way
// `npm start -- --queue` and the queue-mode suite do. Both take their settings from scripts/n8n/queue-mode.mjs
// (and the database names from scripts/n8n/services.mjs); this test reads those modules as they are and the
// compose file as Docker Compose reads it (YAML with merge keys), so a change to one without the other fails here.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const repoRoot = path.resolve(__dirname, '..', '..');
const dockerDir = path.join(repoRoot, 'docker');

interface ComposeService {
	image?: string;
	volumes?: string[];
	build?: { context: string; args?: Record<string, string> };
	command?: string;
	environment?: Record<string, string>;
	depends_on?: Record<string, { condition: string }>;
	ports?: string[];
}

const compose = parse(readFileSync(path.join(dockerDir, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
	services: Record<string, ComposeService>;
};

/** What the scripts export, read by importing the modules themselves (jest cannot load ES modules). */
const project = JSON.parse(
	spawnSync(
		process.execPath,
		[
			'--input-type=module',
			'-e',
			`const q = await import(${JSON.stringify(path.join(repoRoot, 'scripts', 'n8n', 'queue-mode.mjs'))});
			 const s = await import(${JSON.stringify(path.join(repoRoot, 'scripts', 'n8n', 'services.mjs'))});
			 const b = await import(${JSON.stringify(path.join(repoRoot, 'scripts', 'n8n', 'balancer.mjs'))});
			 process.stdout.write(JSON.stringify({ workers: q.QUEUE_WORKERS, webhookProcesses: q.QUEUE_WEBHOOK_PROCESSES, settings: q.QUEUE_MODE_SETTINGS,
			   mainSettings: q.MAIN_BEHIND_WEBHOOK_PROCESSES, webhookSettings: q.WEBHOOK_PROCESS_SETTINGS, webhookPaths: b.WEBHOOK_PROCESS_PATHS, singleWebhookPaths: b.SINGLE_WEBHOOK_PROCESS_PATHS,
			   database: s.DATABASE, databaseUser: s.DATABASE_USER }));`,
		],
		{ encoding: 'utf8' },
	).stdout,
) as {
	workers: number;
	webhookProcesses: number;
	settings: Record<string, string>;
	mainSettings: Record<string, string>;
	webhookSettings: Record<string, string>;
	webhookPaths: string[];
	singleWebhookPaths: string[];
	database: string;
	databaseUser: string;
};

const services = compose.services;
const n8nServices = Object.entries(services).filter(([, service]) => service.build !== undefined);
const byCommand = (command: string) => n8nServices.filter(([, service]) => service.command === command);
/** A compose value such as `${POSTGRES_PASSWORD:?...}` names the variable it comes from. */
const variableOf = (value: string | undefined) => /^\$\{(\w+)/.exec(value ?? '')?.[1];

describe('docker/docker-compose.yml: queue mode as `npm start -- --queue` runs it', () => {
	it('has a main process, as many workers and webhook processes as npm start, the balancer, PostgreSQL and Redis', () => {
		expect(project.workers).toBeGreaterThan(0);
		expect(project.webhookProcesses).toBeGreaterThan(1);
		expect(byCommand('start')).toHaveLength(1);
		expect(byCommand('worker')).toHaveLength(project.workers);
		expect(byCommand('webhook')).toHaveLength(project.webhookProcesses);
		expect(n8nServices).toHaveLength(1 + project.workers + project.webhookProcesses);
		expect(services.postgres?.image).toMatch(/^postgres:\d+/);
		expect(services.redis?.image).toMatch(/^redis:\d+/);
		// Only the balancer is reached from outside; it passes the editor, REST API and webhooks on.
		expect(services.balancer?.image).toMatch(/^nginx:\d+/);
		expect(services.balancer?.ports).toEqual(['5678:5678']);
		for (const [name, service] of n8nServices) expect({ name, ports: service.ports }).toEqual({ name, ports: undefined });
	});

	it('serves production webhooks from the webhook processes only: the main has them off, the balancer routes as scripts/n8n/balancer.mjs', () => {
		const [[, main]] = byCommand('start');
		for (const [key, value] of Object.entries(project.mainSettings)) expect({ key, value: main.environment?.[key] }).toEqual({ key, value });
		for (const [name, service] of [...byCommand('webhook'), ...byCommand('worker')]) {
			for (const key of Object.keys(project.mainSettings)) expect({ name, key, value: service.environment?.[key] }).toEqual({ name, key, value: undefined });
		}
		// The webhook processes' own settings (the expression isolate acquired lazily), on them only.
		expect(Object.keys(project.webhookSettings).length).toBeGreaterThan(0);
		for (const [name, service] of byCommand('webhook')) {
			for (const [key, value] of Object.entries(project.webhookSettings)) expect({ name, key, value: service.environment?.[key] }).toEqual({ name, key, value });
		}
		for (const [name, service] of [...byCommand('start'), ...byCommand('worker')]) {
			for (const key of Object.keys(project.webhookSettings)) expect({ name, key, value: service.environment?.[key] }).toEqual({ name, key, value: undefined });
		}
		expect(services.balancer.volumes).toEqual(['./nginx.conf:/etc/nginx/nginx.conf:ro']);
		const nginx = readFileSync(path.join(dockerDir, 'nginx.conf'), 'utf8');
		const upstream = (name: string) => [...(new RegExp(`upstream ${name} \\{([^}]*)\\}`).exec(nginx)?.[1] ?? '').matchAll(/server ([\w-]+):5678;/g)].map((match) => match[1]);
		expect(upstream('n8n_main')).toEqual(byCommand('start').map(([name]) => name));
		expect(upstream('n8n_webhooks')).toEqual(byCommand('webhook').map(([name]) => name));
		expect(upstream('n8n_mcp')).toEqual([byCommand('webhook')[0][0]]);
		// The prefixes sent to the webhook processes: the same as the balancer of npm start.
		const alternatives = /location ~ \^\/\(([\w|-]+)\)\/ \{\s*proxy_pass http:\/\/n8n_webhooks;/.exec(nginx)?.[1].split('|') ?? [];
		expect(alternatives.map((name) => `/${name}/`).sort()).toEqual([...project.webhookPaths].sort());
		for (const prefix of project.singleWebhookPaths) expect(nginx).toMatch(new RegExp(`location ${prefix.replace(/\//g, '\\/')} \\{\\s*proxy_pass http://n8n_mcp;`));
		expect(nginx).toMatch(/location \/ \{\s*proxy_pass http:\/\/n8n_main;/);
	});

	it('runs every n8n process from the derived image with the package, and the same settings as the queue-mode suite', () => {
		for (const [name, service] of n8nServices) {
			expect({ name, context: service.build?.context }).toEqual({ name, context: '.' });
			const env = service.environment ?? {};
			for (const [key, value] of Object.entries(project.settings)) expect({ name, key, value: env[key] }).toEqual({ name, key, value });
			expect({ name, db: [env.DB_TYPE, env.DB_POSTGRESDB_HOST, env.DB_POSTGRESDB_DATABASE, env.DB_POSTGRESDB_USER] }).toEqual({
				name,
				db: ['postgresdb', 'postgres', project.database, project.databaseUser],
			});
			expect({ name, redis: env.QUEUE_BULL_REDIS_HOST }).toEqual({ name, redis: 'redis' });
			// Until n8n has verified the package, n8n 3.0 loads it only when this is set.
			expect({ name, unverified: env.N8N_UNVERIFIED_PACKAGES_ENABLED }).toEqual({ name, unverified: 'true' });
			// One encryption key for all, from the deployment's .env, never written into the file.
			expect({ name, key: variableOf(env.N8N_ENCRYPTION_KEY) }).toEqual({ name, key: 'N8N_ENCRYPTION_KEY' });
			// One public address in every process: a worker builds a Wait node's resume URL from it (docs/internals/push.md).
			expect({ name, webhookUrl: variableOf(env.WEBHOOK_URL) }).toEqual({ name, webhookUrl: 'WEBHOOK_URL' });
			expect(Object.keys(service.depends_on ?? {})).toEqual(expect.arrayContaining(['postgres', 'redis']));
		}
		const postgres = services.postgres.environment ?? {};
		expect([postgres.POSTGRES_DB, postgres.POSTGRES_USER]).toEqual([project.database, project.databaseUser]);
		expect(variableOf(postgres.POSTGRES_PASSWORD)).toBe(variableOf(n8nServices[0][1].environment?.DB_POSTGRESDB_PASSWORD));
	});

	it('builds the image from docker/Dockerfile: the official n8n image with the package in ~/.n8n/nodes', () => {
		const dockerfile = readFileSync(path.join(dockerDir, 'Dockerfile'), 'utf8');
		expect(dockerfile).toMatch(/^FROM docker\.n8n\.io\/n8nio\/n8n:\$\{N8N_VERSION\}$/m);
		expect(dockerfile).toMatch(/cd \/home\/node\/\.n8n\/nodes/);
		expect(dockerfile).toMatch(/npm install .*--ignore-scripts .*"n8n-nodes-ollang@\$\{OLLANG_VERSION\}"/);
		const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
		// The default package version is the one this repository would publish.
		expect(dockerfile).toContain(`ARG OLLANG_VERSION=${manifest.version}`);
		expect(n8nServices[0][1].build?.args?.OLLANG_VERSION).toBe(`\${OLLANG_VERSION:-${manifest.version}}`);
	});
});
