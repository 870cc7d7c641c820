/**
 * `paywatch compact [--into FILE] [--full]`: gives the store's free space back to the disk after a migration that
 * shrank rows in place (chain_0007 packs details) or after retention deleted rows (docs/deploy.md, "Sizing").
 */
import { Option, type Command } from 'commander';
import { openConfiguredStore } from '../open-store.js';
import { compactStore } from '../../store/maintenance.js';
import { addSettingOptions } from '../options.js';
import { action, configFrom } from '../run.js';

const mb = (n: number) => `${(n / 1_048_576).toFixed(1)} MB`;

/** Adds `compact`'s options and action to its command. */
export function register(cmd: Command): void {
  addSettingOptions(cmd, 'compact')
    .addOption(new Option('--into <file>', 'SQLite: write a packed copy to FILE (VACUUM INTO) and leave the store as it is'))
    .addOption(new Option('--full', 'PostgreSQL: VACUUM FULL (returns space to the system; locks the tables while it runs)'))
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        const store = await openConfiguredStore(config);
        try {
          const r = await compactStore(store, { into: opts.into as string | undefined, full: Boolean(opts.full) });
          process.stdout.write(
            opts.into
              ? `wrote a packed copy of ${store.location} (${mb(r.before)} in use) to ${String(opts.into)}\n`
              : `compacted ${store.location}: ${mb(r.before)} → ${mb(r.after)} (${r.statements.join('; ')})\n`,
          );
        } finally {
          await store.close();
        }
      }),
    );
}
