/**
 * The documentation's tables that are built from code: the error codes (src/domain/error-codes.ts, with each face's
 * mapping) and the limits (src/limits/index.ts) in docs/architecture.md, the settings (src/settings/index.ts) in the
 * README. Each sits between two markers in its file; `npm run docs:tables` (scripts/write-doc-tables.ts) rewrites
 * them, and test/domain/error-codes.test.ts, test/settings/settings.test.ts and test/limits/table.test.ts hold the
 * files equal to what this renders.
 */
import { readFileSync } from 'node:fs';
import { EXIT_CODE_OF_CODE } from '../src/cli/run.js';
import { ERROR_CODE_LIST, ERROR_CODES } from '../src/domain/error-codes.js';
import { HTTP_STATUS_OF_CODE } from '../src/http/errors.js';
import { LIMITS, type Limit, type LimitName } from '../src/limits/index.js';
import { COMMANDS, type CommandName, SETTING_KEYS, SETTINGS, type Setting } from '../src/settings/index.js';

/** One generated table: where it lives and how it is rendered. */
export interface DocTable {
  /** The file, from the repository root. */
  file: string;
  /** The name in its markers: `<!-- BEGIN generated NAME … -->` and `<!-- END generated NAME -->`. */
  name: string;
  /** Where its rows come from (named in the begin marker). */
  source: string;
  render: () => string;
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const code = (s: string) => `\`${s}\``;

/** The error codes with their catalogue entry, HTTP status and exit code. */
export function errorCodesTable(): string {
  const rows = ERROR_CODE_LIST.map((c) => {
    const info = ERROR_CODES[c];
    const status = HTTP_STATUS_OF_CODE[c];
    const retryable = info.retryable === 'varies' ? 'varies' : yesNo(info.retryable);
    return `| ${code(c)} | ${yesNo(info.callerFault)} | ${retryable} | ${status ?? '500 (internal)'} | ${EXIT_CODE_OF_CODE[c]} | ${info.meaning} |`;
  });
  return ["| code | caller's fault | retryable | HTTP | exit | meaning |", '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** How the README names a command group. */
const COMMAND_LABEL: Record<CommandName, string> = {
  start: '`start`',
  collect: '`collect`',
  serve: '`serve`',
  demo: '`demo`',
  seed: '`seed`',
  verify: '`verify`',
  'intel collect': '`intel collect`',
  'intel verify-archive': '`intel verify-archive`',
  'integrity verify': '`integrity verify`',
  operator: '`operator …`',
  'operator sender keys': '`operator connection create`/`rotate`, `operator producer enroll`/`rotate`',
  compact: '`compact`',
};

/** The commands column: every command, or the list. */
function commandsCell(s: Setting): string {
  const cmds = s.commands ?? [];
  if (cmds.length === 0) return '';
  if (COMMANDS.every((c) => c === 'operator sender keys' || cmds.includes(c))) return 'every command';
  return cmds.map((c) => COMMAND_LABEL[c]).join(', ');
}

/** The default column: its text, else the value as code, else none. */
function defaultCell(s: Setting): string {
  if (s.defaultText !== undefined) return s.defaultText;
  return s.default === null ? 'none' : code(String(s.default));
}

/** The README's Configuration table: one row per setting. */
export function settingsTable(): string {
  const rows = SETTING_KEYS.map((k) => {
    const s: Setting = SETTINGS[k];
    const flag = s.flag ? code(s.flag.split(' ')[0]!) : '';
    return `| ${flag} | ${code(s.env)} | ${defaultCell(s)} | ${commandsCell(s)} | ${s.doc ?? s.help} |`;
  });
  return ['| flag | environment | default | flag on | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** What is answered beyond a limit, in words. */
function answerCell(l: Limit): string {
  const { status, retryAfter } = l.answer;
  const head = status === null ? 'connection closed' : String(status);
  if (retryAfter === null) return head;
  return `${head} + Retry-After (${retryAfter === 'window' ? 'until the window ends' : `${retryAfter} s`})`;
}

/** Who sets a limit: its setting (variable and default), else its fixed value. */
function setByCell(l: Limit): string {
  if (l.setting === null) return `fixed: ${l.value}`;
  const s: Setting = SETTINGS[l.setting];
  return `${code(s.env)} (default ${defaultCell(s)})`;
}

/** The limits: every request or connection refused, and why. */
export function limitsTable(): string {
  const rows = (Object.keys(LIMITS) as LimitName[]).map((name) => {
    const l: Limit = LIMITS[name];
    return `| ${code(name)} | ${l.what} | ${l.scope} | ${l.unit} | ${setByCell(l)} | ${answerCell(l)} | ${l.why} |`;
  });
  return ['| limit | what | scope | bound | set by | beyond it | why |', '|---|---|---|---|---|---|---|', ...rows].join('\n');
}

/** Every generated table. */
export const DOC_TABLES: readonly DocTable[] = [
  { file: 'docs/architecture.md', name: 'error-codes', source: 'src/domain/error-codes.ts', render: errorCodesTable },
  { file: 'docs/architecture.md', name: 'limits', source: 'src/limits/index.ts', render: limitsTable },
  { file: 'README.md', name: 'settings', source: 'src/settings/index.ts', render: settingsTable },
];

const begin = (t: DocTable) => `<!-- BEGIN generated ${t.name} table from ${t.source} by npm run docs:tables -->`;
const end = (t: DocTable) => `<!-- END generated ${t.name} table -->`;

/**
 * The table as it stands in `text` (between its markers, without them).
 * @throws Error when the markers are missing
 */
export function currentTable(text: string, t: DocTable): string {
  const from = text.indexOf(begin(t));
  const to = text.indexOf(end(t));
  if (from < 0 || to < from) throw new Error(`${t.file}: no ${begin(t)} … ${end(t)} section`);
  return text.slice(from + begin(t).length, to).trim();
}

/** The body rows of a Markdown table (header and rule left out), each as its trimmed cells. */
export function tableCells(table: string): string[][] {
  return table
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/** `text` with table `t` replaced by its rendering. @throws Error when the markers are missing */
export function withTable(text: string, t: DocTable): string {
  currentTable(text, t);
  const from = text.indexOf(begin(t));
  const to = text.indexOf(end(t));
  return `${text.slice(0, from)}${begin(t)}\n${t.render()}\n${text.slice(to)}`;
}

/** The file of table `t` as it is on disk, from the repository root `root`. */
export function readDoc(root: URL, t: DocTable): string {
  return readFileSync(new URL(t.file, root), 'utf8');
}
