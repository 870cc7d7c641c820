/**
 * `paywatch intel collect [--once]` runs the provider-intelligence collection (sources → services → probes →
 * snapshots, offers, changes; then archive verification); `paywatch intel verify-archive` re-hashes the stored
 * evidence and exits 1 when any row fails.
 */
import type { Command } from 'commander';
import type { AppContext } from '../../context.js';
import { collectOnce } from '../../intel/collect.js';
import { startIntelCollector } from '../../intel/schedule.js';
import { verifyArchive } from '../../intel/archive.js';
import { parseSources } from '../../intel/sources/index.js';
import { openStore } from '../../store/db.js';
import { addSettingOptions } from '../options.js';
import { createLogger } from '../progress.js';
import { action, CliError, configFrom, untilSignal } from '../run.js';
import { shortMessage } from '../../domain/errors.js';

/** Adds `intel`'s subcommands to its command. */
export function register(cmd: Command): void {
  const intel = cmd;

  addSettingOptions(intel.command('collect'), 'intel collect')
    .description('read the configured sources, probe every known service without paying, record offers and changes')
    .option('--once', 'run one collection pass (and one archive verification), print its counts, exit 0')
    .option('--allow-loopback', 'let sources and probes reach loopback addresses (local demo and tests only)')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        const log = createLogger(config);
        let sources: ReturnType<typeof parseSources>;
        try {
          sources = parseSources(config.sources);
        } catch (e) {
          throw new CliError(`invalid --sources: ${shortMessage(e)}`, 2);
        }
        const allowLoopback = Boolean(opts.allowLoopback);
        const store = await openStore(config.db);
        try {
          if (opts.once) {
            const summary = await collectOnce(store, { sources, allowLoopback, log });
            const verification = await verifyArchive(store);
            process.stdout.write(
              `${JSON.stringify({ ...summary, archive: { checked: verification.checked, verified: verification.verified, failed: verification.failed.length } })}\n`,
            );
            return;
          }
          const ctx: AppContext = { store, config, components: new Map(), log };
          const collector = startIntelCollector(ctx, { sources, allowLoopback, log });
          log.info({ sources: sources.map((s) => s.name), interval_s: config.intelIntervalSeconds }, 'intel collector started');
          const signal = await untilSignal();
          log.info({ signal }, 'stopping after the run in progress');
          await collector.stop();
        } finally {
          await store.close();
        }
      }),
    );

  addSettingOptions(intel.command('verify-archive'), 'intel verify-archive')
    .description(
      're-hash every archived response (endpoint checks and directory answers) against the evidence hash its snapshot cites; exit 1 when any fails',
    )
    .action(
      action(async (opts: Record<string, unknown>) => {
        const config = configFrom(opts);
        const store = await openStore(config.db);
        try {
          const r = await verifyArchive(store);
          process.stdout.write(`${JSON.stringify(r)}\n`);
          if (r.failed.length) throw new CliError(`${r.failed.length} of ${r.checked} evidence rows do not match their evidence hash`);
        } finally {
          await store.close();
        }
      }),
    );
}
