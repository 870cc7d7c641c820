/**
 * The Fastify base shared by every paywatch listener (the public API in ./app.ts, the trust check in
 * src/trust/app.ts), so validation, serialisation and error mapping are the same everywhere.
 */
import Fastify, { LogController } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { installErrorHandling } from './errors.js';

/**
 * Response serialisation: plain JSON.stringify. Response schemas exist for the OpenAPI document and are
 * checked in tests against real answers; re-validating every row with zod on each request would only cost time.
 */
const jsonSerializerCompiler = () => (data: unknown) => JSON.stringify(data);

/**
 * A bare Fastify instance as every paywatch listener wants it (the public API and the trust check): zod
 * request validation, JSON.stringify responses, `{error}` error mapping, no per-request logs.
 * @param bodyLimit request body cap in bytes
 */
export function baseFastify(config: Pick<Config, 'logLevel'>, bodyLimit: number, logger?: boolean | object) {
  const app = Fastify({
    logger: logger ?? { level: config.logLevel },
    trustProxy: false,
    bodyLimit,
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(jsonSerializerCompiler);
  installErrorHandling(app);
  return app;
}

