/**
 * `paywatch operator …`: operator tools for the private intake (connections, producers, operator tokens,
 * stored events and outcomes, cost summaries). Subcommand groups live in ../operator/ (docs/intake.md).
 */
import type { Command } from 'commander';
import { operatorCommands } from '../operator/index.js';

/** Registers `operator` and its subcommand groups on the program. */
export function register(program: Command): void {
  const op = program.command('operator').description('operator tools: connections, producers, tokens, private reads');
  for (const add of operatorCommands) add(op);
}
