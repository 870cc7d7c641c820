/**
 * `paywatch operator …`: operator tools for the private intake (connections, producers, operator tokens,
 * stored events and outcomes, cost summaries). Subcommand groups live in ../operator/ (docs/intake.md).
 */
import type { Command } from 'commander';
import { operatorCommands } from '../operator/index.js';

/** Adds `operator`'s subcommand groups to its command. */
export function register(cmd: Command): void {
  for (const add of operatorCommands) add(cmd);
}
