/**
 * Every CLI command, in help order. Each module exports `register(program)`; add one line per command.
 */
import type { Command } from 'commander';

export const commands: ((program: Command) => void)[] = [];
