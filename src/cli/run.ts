/**
 * Shared plumbing for CLI commands: one-line errors and non-zero exits, config from flags, signal handling.
 */
import { type ErrorCode, PaywatchError, shortMessage } from '../domain/errors.js';
import { loadConfig, type Config } from '../config.js';
import { flagsFrom } from './options.js';

/** An error whose message is meant for the person at the terminal, printed as one line. */
export class CliError extends PaywatchError {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message, { code: 'cli' });
  }
}

/**
 * Exit codes by error code (src/domain/error-codes.ts), the CLI's one table: 2 for settings or input that cannot be
 * used (as for a bad flag), 1 for everything else; a CliError carries its own (`cli` is its default). Typed over
 * every code, so a code added to the catalogue without an exit code here fails the typecheck.
 */
export const EXIT_CODE_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 2,
  unauthenticated: 1,
  forbidden: 1,
  not_found: 1,
  conflict: 1,
  limit_exceeded: 1,
  unavailable: 1,
  store_unavailable: 1,
  body_too_large: 1,
  url_too_long: 1,
  unsupported_media_type: 1,
  config: 2,
  sources_config: 1,
  token_list: 1,
  master_secret: 1,
  read_replica: 1,
  wrong_chain: 1,
  cli: 1,
  consensus_decode: 1,
  token_metadata_timeout: 1,
  rpc_unavailable: 1,
  rpc_http: 1,
  rpc_call: 1,
  inconsistent_answer: 1,
  collector_failed: 1,
  integrity_mismatch: 3,
  collector_locked: 1,
  block_over_budget: 1,
  collector_lock_lost: 1,
  header_field: 1,
  malformed_hex: 1,
  unsupported_encoding: 1,
  event_mismatch: 1,
  anvil: 1,
  decode_worker_failed: 1,
  reader_thread_failed: 1,
  writer_thread_failed: 1,
  migration: 1,
  sealed_value: 1,
  invalid_decimal: 1,
  internal: 1,
  source_answer: 1,
  evidence_format: 1,
  fetch_scheme: 1,
  fetch_address: 1,
  fetch_credentials: 1,
  fetch_bad_url: 1,
  fetch_dns: 1,
  fetch_connect: 1,
  fetch_timeout: 1,
  fetch_too_large: 1,
  fetch_too_many_redirects: 1,
  fetch_bad_redirect: 1,
  payment_route_missing: 1,
  openapi_incomplete: 1,
  demo: 1,
};

/** The exit code for `err`: a CliError's own, else its code's (EXIT_CODE_OF_CODE), else 1. */
export function exitCodeOf(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  return err instanceof PaywatchError ? (EXIT_CODE_OF_CODE[err.code] ?? 1) : 1;
}

/**
 * Wraps a command action: any error becomes `paywatch: <message>` on stderr and a non-zero exit code.
 * Messages are one line; stack traces only with PAYWATCH_DEBUG=1.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void) {
  return async (...args: A): Promise<void> => {
    try {
      await fn(...args);
    } catch (e) {
      process.stderr.write(`paywatch: ${shortMessage(e)}\n`);
      if (process.env.PAYWATCH_DEBUG === '1') process.stderr.write(`${(e as Error)?.stack}\n`);
      process.exitCode = exitCodeOf(e);
      // Give loggers a moment to flush, then make sure nothing (pools, timers) keeps the process alive.
      setTimeout(() => process.exit(process.exitCode ?? 1), 50).unref();
    }
  };
}

/** Reads commander option values (camelCase keys) into a validated Config (src/config.ts). @throws ConfigError */
export function configFrom(opts: Record<string, unknown>): Config {
  return loadConfig(flagsFrom(opts));
}

/**
 * Resolves when SIGINT or SIGTERM arrives (once), for long-running commands that stop cleanly.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (s: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(s);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
