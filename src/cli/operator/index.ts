/**
 * The subcommand groups of `paywatch operator`. Each module exports a function that adds its subcommands to the
 * operator group; another area extends the group by adding a file here and one line to this list.
 */
import type { Command } from 'commander';
import { registerConnection, registerProducer } from './senders.js';
import { registerTokens } from './tokens.js';
import { registerReads } from './reads.js';
import { registerKeys } from './key.js';
import { registerUsage } from './usage.js';

export const operatorCommands: ((operator: Command) => void)[] = [
  registerConnection,
  registerProducer,
  registerTokens,
  registerReads,
  registerKeys,
  registerUsage,
];
