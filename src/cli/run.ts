/**
 * Shared plumbing for CLI commands: one-line errors and non-zero exits, config from flags, signal handling.
 */
import { PaywatchError } from '../domain/errors.js';
import { loadConfig, type Config, type Flags } from '../config.js';

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
 * Exit codes by error code (src/domain/errors.ts), the CLI's one table: 2 for settings that cannot be used (as
 * for a bad flag), 1 for everything else; a CliError carries its own.
 */
export const EXIT_CODE_OF_CODE: Readonly<Record<string, number>> = { config: 2, invalid_input: 2 };

/** The exit code for `err`. */
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
      const err = e as Error;
      const msg = (err?.message ?? String(e)).split('\n')[0];
      process.stderr.write(`paywatch: ${msg}\n`);
      if (process.env.PAYWATCH_DEBUG === '1') process.stderr.write(`${err?.stack}\n`);
      process.exitCode = exitCodeOf(err);
      // Give loggers a moment to flush, then make sure nothing (pools, timers) keeps the process alive.
      setTimeout(() => process.exit(process.exitCode ?? 1), 50).unref();
    }
  };
}

/** Reads commander option values (camelCase keys) into a validated Config. @throws ConfigError */
export function configFrom(opts: Record<string, unknown>): Config {
  const flags: Flags = {};
  const optionName: Partial<Record<keyof Flags, string>> = { rpcUrl: 'rpc', tokenList: 'tokenlist' };
  for (const k of [
    'db',
    'dbRead',
    'redis',
    'rpcUrl',
    'port',
    'host',
    'from',
    'tokenList',
    'logLevel',
    'rateLimitPerMinute',
    'batchSize',
    'rpcConcurrency',
    'pollIntervalMs',
    'verifyPort',
    'trustProxy',
    'metricsPort',
    'metricsHost',
  ] as const) {
    const v = opts[optionName[k] ?? k];
    if (v !== undefined) flags[k] = v as string;
  }
  return loadConfig(flags);
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
