/**
 * `paywatch operator events list`, `outcomes list` and `costs`: the operator reads, filtered by the same
 * schemas as the HTTP operator reads (src/intake/schemas.ts), one environment per answer.
 */
import { Option, type Command } from 'commander';
import type { z } from 'zod';
import { action, CliError } from '../run.js';
import { costSummary, readEvents, readOutcomes, type CostLine } from '../../intake/queries.js';
import { OperatorCostsQuery, OperatorListQuery } from '../../intake/schemas.js';
import { operatorOptions, output, printable, readOptions, readQuery, when, withStore } from './shared.js';

/** Parses flags with a shared schema. @throws CliError naming the flag */
function parse<T extends z.ZodType>(schema: T, q: Record<string, unknown>): z.output<T> {
  const r = schema.safeParse(q);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new CliError(`--${i.path.join('.') || 'options'} ${i.message}`, 2);
  }
  return r.data;
}

const LIST_KEYS = ['env', 'since', 'until', 'limit', 'offset'];

/** One text line of a cost sum. */
const costLine = (label: string, c: CostLine) =>
  `  ${printable(label)}\t${c.total} ${printable(c.asset)} on ${printable(c.network)}\t(${c.outcomes} outcomes)`;

/** The text shown for a stored row whose body does not render (the bytes are in --json output). */
const unrendered = (r: { record_error: string | null }) => `[stored body not shown: ${r.record_error}; see --json stored_body_base64]`;

/** Registers `events`, `outcomes` and `costs` under the operator group. */
export function registerReads(op: Command): void {
  readOptions(operatorOptions(op.command('events').description('stored protocol events').command('list')), true)
    .description('list stored protocol events of one environment, newest event_time first')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const f = parse(OperatorListQuery, readQuery(opts, LIST_KEYS));
        const page = await withStore(opts, (store) => readEvents(store, f));
        output(opts, page, () => [
          `${page.total} ${page.environment} events (showing ${page.rows.length} from offset ${page.offset})`,
          ...page.rows.map(
            (r) =>
              `${when(r.event_time)}\t${r.connection_id}\t${r.protocol}\t${printable(r.event_type)}\t${r.record_kind ?? '-'}\t${r.event_id}\tsha256 ${r.body_sha256}${r.record_error ? `\t${unrendered(r)}` : ''}`,
          ),
        ]);
      }),
    );
  readOptions(operatorOptions(op.command('outcomes').description('stored outcome records').command('list')), true)
    .description('list stored outcome records of one environment, newest occurred_at first')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const f = parse(OperatorListQuery, readQuery(opts, LIST_KEYS));
        const page = await withStore(opts, (store) => readOutcomes(store, f));
        output(opts, page, () => [
          `${page.total} ${page.environment} outcomes (showing ${page.rows.length} from offset ${page.offset})`,
          ...page.rows.map((r) => {
            const o = r.record as {
              task_id: string;
              attempt_id: string;
              charge: { amount: string; asset: string };
              evaluation: { verdict: string };
            } | null;
            const what = o
              ? `task ${o.task_id}/${o.attempt_id}\t${printable(o.evaluation.verdict)}\t${o.charge.amount} ${printable(o.charge.asset)}`
              : unrendered(r);
            return `${when(r.occurred_at)}\t${r.producer_id}\t${what}\t${r.event_id}`;
          }),
        ]);
      }),
    );
  readOptions(operatorOptions(op.command('costs')), false)
    .addOption(new Option('--period <period>', 'group by UTC day or month (default day)').choices(['day', 'month']))
    .description('reported charges summed exactly per service, producer and period (one environment)')
    .action(
      action(async (opts: Record<string, unknown>) => {
        const { period, ...f } = parse(OperatorCostsQuery, readQuery(opts, ['env', 'since', 'until', 'period']));
        const s = await withStore(opts, (store) => costSummary(store, f, period));
        output(opts, s, () => [
          `reported costs, ${s.environment} (what producers said they paid; not verified charges)`,
          'per service:',
          ...s.by_service.map((c) => costLine(c.service_id ?? c.service_url ?? '-', c)),
          'per producer:',
          ...s.by_producer.map((c) => costLine(c.producer_id, c)),
          `per ${s.period}:`,
          ...s.by_period.map((c) => costLine(c.period, c)),
        ]);
      }),
    );
}
