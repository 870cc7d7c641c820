/**
 * Every CLI command, in help order. Each module exports `register(program)`; add one line per command.
 */
import type { Command } from 'commander';
import { register as start } from './start.js';
import { register as collect } from './collect.js';
import { register as serve } from './serve.js';
import { register as demo } from './demo.js';
import { register as operator } from './operator.js';
import { register as seed } from './seed.js';
import { register as verify } from './verify.js';
import { register as intel } from './intel.js';

export const commands: ((program: Command) => void)[] = [start, collect, serve, demo, operator, seed, verify, intel];
