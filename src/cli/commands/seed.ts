/**
 * `paywatch seed --count N`: fills the store with N realistic synthetic observations (for the API benchmark
 * and for trying the API without a node). Synthetic rows are marked by evidence.source = "synthetic".
 */
import { Option, type Command } from 'commander';
import { openConfiguredStore } from '../open-store.js';
import { seedStore } from '../../seed/chain.js';
import { addSettingOptions } from '../options.js';
import { action, CliError, configFrom } from '../run.js';

/** Parses a positive integer flag. @throws CliError naming the flag */
function positive(name: string, v: unknown, max: number): number {
  const s = String(v);
  if (!/^\d+$/.test(s) || Number(s) < 1 || Number(s) > max)
    throw new CliError(`--${name} must be an integer from 1 to ${max}, got ${JSON.stringify(v)}`, 2);
  return Number(s);
}

/** Adds `seed`'s options and action to its command. */
export function register(cmd: Command): void {
  addSettingOptions(cmd, 'seed')
    .addOption(new Option('--count <n>', 'number of observations').makeOptionMandatory())
    .addOption(new Option('--seed <n>', 'random seed (same seed, same data)').default('1'))
    .addOption(new Option('--start-height <h>', 'first block height').default('1000000'))
    .action(
      action(async (opts: Record<string, unknown>) => {
        const count = positive('count', opts.count, 100_000_000);
        const seed = positive('seed', opts.seed, 2 ** 31);
        const startHeight = positive('start-height', opts.startHeight, 2 ** 40);
        const config = configFrom(opts);
        const store = await openConfiguredStore(config);
        try {
          let last = 0;
          const res = await seedStore(store, {
            count,
            seed,
            startHeight,
            // End the synthetic chain about now, so lag and time filters look like a live store's.
            startTime: Math.floor(Date.now() / 1000) - Math.ceil(count / 4),
            onProgress: (done) => {
              if (done - last >= 100_000 || done === count) {
                last = done;
                process.stderr.write(`seeded ${done}/${count}\n`);
              }
            },
          });
          process.stdout.write(
            `seeded ${res.inserted} observations in ${res.blocks} blocks into ${store.location} in ${res.seconds.toFixed(1)} s\n`,
          );
        } finally {
          await store.close();
        }
      }),
    );
}
