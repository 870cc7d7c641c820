/**
 * The bare-route baseline as its own process: Fastify answering GET and POST /bare with a fixed JSON body of
 * about BYTES bytes. Usage: node bin/run-ts.js bench/lib/bare-server.ts BYTES PORT
 */
import Fastify from 'fastify';

const bytes = Number(process.argv[2] ?? 1000);
const port = Number(process.argv[3] ?? 0);
const app = Fastify({ logger: false });
const body = JSON.stringify({ pad: 'x'.repeat(Math.max(0, bytes - 10)) });
app.get('/bare', async (_req, reply) => reply.header('content-type', 'application/json').send(body));
app.post('/bare', async (_req, reply) => reply.header('content-type', 'application/json').send(body));
await app.listen({ port, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
