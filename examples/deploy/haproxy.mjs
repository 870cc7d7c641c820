/**
 * Writes the HAProxy configuration of the deployment in docs/deploy.md: one HTTP frontend, round robin over the
 * `paywatch serve` replicas with health checks on /readyz, the client's address passed in X-Forwarded-For
 * (replicas run with `--trust-proxy <HAProxy's address>`), keep-alive to the replicas.
 * Usage: node examples/deploy/haproxy.mjs BIND_PORT REPLICA_PORT [REPLICA_PORT …] > haproxy.cfg
 * Also imported by bench/replicas.ts (haproxyConfig).
 */
import { pathToFileURL } from 'node:url';

/**
 * The configuration text.
 * @param {number} bind the port HAProxy listens on (127.0.0.1)
 * @param {number[]} replicas the replicas' ports on 127.0.0.1
 * @param {{ host?: string, checkPath?: string, threads?: number }} [opts] the replicas' host (default 127.0.0.1),
 *   health-check path (default /readyz) and HAProxy threads (default 1; more on a machine of its own)
 * @returns {string}
 */
export function haproxyConfig(bind, replicas, opts = {}) {
  const host = opts.host ?? '127.0.0.1';
  return [
    'global',
    '  maxconn 4096',
    // One thread: on the replicas' own machine a second HAProxy thread takes their cores (bench/README.md, replicas).
    `  nbthread ${opts.threads ?? 1}`,
    'defaults',
    '  mode http',
    '  option http-keep-alive',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    'frontend paywatch',
    `  bind 127.0.0.1:${bind}`,
    '  option forwardfor',
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    `  option httpchk GET ${opts.checkPath ?? '/readyz'}`,
    ...replicas.map((p, i) => `  server r${i + 1} ${host}:${p} check inter 2s`),
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [bind, ...replicas] = process.argv.slice(2).map(Number);
  if (!bind || !replicas.length || [bind, ...replicas].some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
    process.stderr.write('usage: node examples/deploy/haproxy.mjs BIND_PORT REPLICA_PORT [REPLICA_PORT …]\n');
    process.exit(2);
  }
  process.stdout.write(haproxyConfig(bind, replicas));
}
