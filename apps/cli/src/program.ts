import { Command, CommanderError, Option } from 'commander';
import {
  configCommand,
  loginCommand,
  logoutCommand,
  tokenCreateCommand,
  tokenRevokeCommand,
  whoamiCommand,
} from './commands/auth';
import {
  filesArchive,
  filesGet,
  filesLs,
  filesPut,
  filesRm,
  storageGet,
  storageLs,
  storagePut,
  storageRm,
} from './commands/files';
import {
  answerCommand,
  cancelCommand,
  createProjectCommand,
  feedbackCommand,
  logsCommand,
  projectsCommand,
  reportCommand,
  retryCommand,
  runCommand,
  statusCommand,
} from './commands/workflows';
import { listCommand, type ListFlags } from './commands/run-list';
import { registerWorkerCommands } from './commands/workers';
import { registerScheduleCommands } from './commands/schedules';
import { addTriggerCommands } from './commands/triggers';
import { addForgeCommands } from './commands/forge';
import { addWebhookCommands } from './commands/webhooks';
import { registerSecretCommands } from './commands/secrets';
import { registerRepositoryCommands } from './commands/repositories';
import { registerMcpCommands } from './commands/mcp';
import { registerAuditCommand } from './commands/audit';
import { budgetOptions, budgetSetCommand, budgetShowCommand, type BudgetFlags } from './commands/budgets';
import {
  notifyOptions,
  notifySetCommand,
  notifyShowCommand,
  notifyTestCommand,
  type NotifyFlags,
} from './commands/notify';
import { addPauseCommands } from './commands/pause';
import { projectSetCommand } from './commands/concurrency';
import { deletedProjectsCommand, restoreProjectCommand } from './commands/project-restore';
import { adminQueueCommand } from './commands/admin';
import { Context, type CliIo, type GlobalOptions } from './context';
import { CliError, errorJson, errorText, EXIT } from './errors';
import { terminalSafe } from './terminal-text';
import { CLI_VERSION } from './version';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;

/**
 * Builds the `svc` command tree (commander). Every action runs with a Context made from the global
 * options merged with its own; its return value is the exit code.
 */
export function buildProgram(io: CliIo, setExit: (code: number) => void, argvJson: boolean): Command {
  const program = new Command('svc');
  program
    .description('Command-line client of svc: run agent workflows from CI pipelines and scripts')
    .version(CLI_VERSION, '-V, --version', 'print the version')
    .option('--url <url>', 'server URL (default: $SVC_URL, then the config file)')
    .option('--token <token>', 'bearer token (default: $SVC_TOKEN, then the config file)')
    .option('--config <file>', 'config file (default: $SVC_CONFIG, then ~/.config/svc/config.json)')
    .option('--json', 'machine-readable output: JSON on stdout (NDJSON events while following)')
    .option('--no-progress', 'no progress bars (they are shown on stderr only when it is a terminal)')
    .option('--verbose', 'also print LLM calls, file changes and pending steps while following')
    .showHelpAfterError('(svc --help lists the commands; svc <command> --help their options)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  const project = () => new Option('-p, --project <id|name>', 'project (default: $SVC_PROJECT, then the config file)');
  const followOptions = (cmd: Command) =>
    cmd
      .option(
        '--follow',
        'follow the workflow until it ends; exit 0 completed, 1 failed, 2 cancelled, 3 waiting for input',
      )
      .option(
        '--answer-file <file>',
        'answers to questions while following: JSON {question: answer} or [answers], plain text, or - (stdin, one line per question)',
      )
      .option('--no-input', 'never ask on the terminal: exit 3 when the workflow waits for an answer');

  const run = (action: Action) =>
    async function (this: Command, ...args: unknown[]) {
      const options = this.optsWithGlobals() as GlobalOptions & Record<string, unknown>;
      const positional = args.slice(0, this.registeredArguments.length);
      const ctx = new Context(io, options as GlobalOptions & { project?: string });
      setExit(
        await (action as (ctx: Context, ...rest: unknown[]) => Promise<number> | number)(ctx, ...positional, options),
      );
    };

  program
    .command('login')
    .description('sign in and save the server URL and an api token in the config file')
    .option('--with-token', 'read the token (api token or svc_session cookie value) from stdin')
    .option('--dev-user <name>', 'dev sign-in (local servers with AUTH_PROVIDER=dev) as this user')
    .option('--no-browser', 'do not open the sign-in page in a browser')
    .option('--ttl <duration>', 'lifetime of the token minted at sign-in (e.g. 30d, 12h; default 30d)')
    .action(run((ctx, flags: Parameters<typeof loginCommand>[1]) => loginCommand(ctx, flags)));
  program
    .command('logout')
    .description('revoke the saved token and remove it from the config file')
    .action(run((ctx) => logoutCommand(ctx)));
  program
    .command('whoami')
    .description('the signed-in user')
    .action(run((ctx) => whoamiCommand(ctx)));

  const token = program.command('token').description('create and revoke bearer tokens');
  token
    .command('create')
    .description('mint a token (prints it on stdout)')
    .addOption(
      new Option('--scope <scope>', 'api (CI, scripts) or worker (administrators)')
        .choices(['api', 'worker'])
        .default('api'),
    )
    .addOption(new Option('-p, --project <id|name>', 'narrow an api token to this project'))
    .option('--ttl <duration>', 'lifetime: seconds or 30d, 12h, 90m, 2w (server default when absent)')
    .option('--save', 'also save it (and the URL) in the config file')
    .option(
      '--session-token <jwt>',
      'mint with this session (the svc_session cookie value; - for stdin) instead of the saved token',
    )
    .option('--dev-user <name>', 'mint through a dev sign-in as this user (servers with AUTH_PROVIDER=dev)')
    .action(run((ctx, flags: Parameters<typeof tokenCreateCommand>[1]) => tokenCreateCommand(ctx, flags)));
  token
    .command('revoke')
    .description('revoke a token (default: the one in use); - reads it from stdin')
    .argument('[token]', 'the token, or - for stdin')
    .action(run((ctx, tokenArg: string | undefined) => tokenRevokeCommand(ctx, tokenArg)));

  program
    .command('config')
    .description('show the settings in use, or change the config file')
    .argument('[action]', 'show (default), path, set <key> <value>, unset <key>', 'show')
    .argument('[key]', 'url, token or project')
    .argument('[value]')
    .action(
      run((ctx, action: string, key: string | undefined, value: string | undefined) =>
        configCommand(ctx, action, key, value),
      ),
    );

  const projects = program.command('projects').alias('project').description('list, create or restore projects');
  projects
    .command('ls', { isDefault: true })
    .description('the projects you can see')
    .action(run((ctx) => projectsCommand(ctx)));
  projects
    .command('create')
    .description('create a project (you become its owner); prints its id')
    .argument('<name>', 'project name')
    .option('--description <text>', 'description')
    .action(run((ctx, name: string, flags: { description?: string }) => createProjectCommand(ctx, name, flags)));
  projects
    .command('set')
    .description("change a project's settings (owners): how many of its runs may run at once")
    .argument('<project>', 'project id')
    .option('--max-running <n|none>', 'at most this many runs hold a worker at once; none: no limit')
    .action(run((ctx, id: string, flags: { maxRunning?: string }) => projectSetCommand(ctx, id, flags)));
  projects
    .command('deleted')
    .description('the deleted projects, newest deletion first (administrators)')
    .action(run((ctx) => deletedProjectsCommand(ctx)));
  projects
    .command('restore')
    .description('bring a deleted project back from its archive (administrators); its secrets stay deleted')
    .argument('<project>', 'project id (see `svc projects deleted`)')
    .action(run((ctx, id: string) => restoreProjectCommand(ctx, id)));

  followOptions(
    budgetOptions(
      program
        .command('run')
        .description('create a workflow from a requirement (prints its id; --follow to watch it to the end)')
        .argument('[requirement]', 'the requirement text, or - for stdin')
        .addOption(project())
        .option('-f, --file <file>', 'read the requirement from a file')
        .option('--template <name>', 'start from this template (a branch of the template repository)')
        .option('--worker <id|name>', 'run on this worker')
        .option('--requires <labels>', 'only a worker with all these labels takes it (comma-separated, e.g. gpu,linux)')
        .option('--priority <n>', 'dispatch order: higher first (default 0, -1000..1000)')
        .option(
          '--concurrency-key <key>',
          "e.g. a branch: the project's runs with one key run one at a time, oldest first",
        )
        .option('--cancel-in-progress', "cancel the key's older unfinished runs instead of waiting behind them")
        .option('--repo <name>', 'work in this project repository: clone, commit per step, push branch svc/<n>-<slug>')
        .option('--base <branch>', "the repository's base branch (default: its default branch)"),
      'budget-',
    ),
  ).action(
    run((ctx, requirement: string | undefined, flags: Parameters<typeof runCommand>[2]) =>
      runCommand(ctx, requirement, flags),
    ),
  );

  const notify = program.command('notify').description('your notifications: e-mail and chat webhooks (decision 0045)');
  notify
    .command('show')
    .description('your notification settings (the chat webhook URL is never shown)')
    .action(run((ctx) => notifyShowCommand(ctx)));
  notifyOptions(
    notify.command('set').description('change your notification settings (options left out keep their value)'),
  ).action(run((ctx, flags: NotifyFlags) => notifySetCommand(ctx, flags)));
  notify
    .command('test')
    .description('send yourself a test message now')
    .argument('<channel>', 'email or chat')
    .action(run((ctx, channel: string) => notifyTestCommand(ctx, channel)));

  const budget = program.command('budget').description("a run's budget: spend against its caps");
  budget
    .command('show')
    .description("a run's budget, its spend and the caps reached")
    .argument('<workflow>', 'workflow id')
    .action(run((ctx, id: string) => budgetShowCommand(ctx, id)));
  budgetOptions(
    budget
      .command('set')
      .description("set or raise a run's budget (`none` removes a cap); a run paused by it resumes")
      .argument('<workflow>', 'workflow id'),
  ).action(run((ctx, id: string, flags: BudgetFlags) => budgetSetCommand(ctx, id, flags)));

  program
    .command('list')
    .description("list a project's runs, newest first: author, worker, duration, question or failure, and the count")
    .addOption(project())
    .option('--limit <n>', 'at most this many', (v) => Number.parseInt(v, 10))
    .option('--cursor <cursor>', 'the page after this cursor (printed under a full page)')
    .option('--status <statuses>', 'only these statuses, comma separated (e.g. running,waiting_user)')
    .option(
      '--author <user>',
      'only runs this user started (login or id; schedule and trigger runs count as their maker)',
    )
    .option('--worker <id>', 'only runs this worker took')
    .option('--since <time>', 'created at or after (YYYY-MM-DD or an RFC 3339 time)')
    .option('--until <time>', 'created before (YYYY-MM-DD or an RFC 3339 time)')
    .option('-q, --query <text>', 'title or requirement contains this text')
    .action(run((ctx, flags: ListFlags) => listCommand(ctx, flags)));
  program
    .command('status')
    .description('a workflow and its plan')
    .argument('<workflow>', 'workflow id')
    .action(run((ctx, id: string) => statusCommand(ctx, id)));

  followOptions(
    program
      .command('answer')
      .description("answer the workflow's question (ask_user)")
      .argument('<workflow>', 'workflow id')
      .argument('[answer]', 'the answer, or - for stdin')
      .option('-f, --file <file>', 'read the answer from a file'),
  ).action(
    run((ctx, id: string, answer: string | undefined, flags: Parameters<typeof answerCommand>[3]) =>
      answerCommand(ctx, id, answer, flags),
    ),
  );
  followOptions(
    program
      .command('feedback')
      .description('ask for a plan revision')
      .argument('<workflow>', 'workflow id')
      .argument('[message]', 'the feedback, or - for stdin')
      .option('-f, --file <file>', 'read the feedback from a file'),
  ).action(
    run((ctx, id: string, message: string | undefined, flags: Parameters<typeof feedbackCommand>[3]) =>
      feedbackCommand(ctx, id, message, flags),
    ),
  );
  program
    .command('cancel')
    .description('stop a workflow')
    .argument('<workflow>', 'workflow id')
    .action(run((ctx, id: string) => cancelCommand(ctx, id)));
  addPauseCommands(program, run, followOptions);
  followOptions(
    program
      .command('retry')
      .description('resume a failed workflow from its latest snapshot')
      .argument('<workflow>', 'workflow id'),
  ).action(run((ctx, id: string, flags: Parameters<typeof retryCommand>[2]) => retryCommand(ctx, id, flags)));
  followOptions(
    program
      .command('logs')
      .description(
        'the execution log (--follow: live, until the workflow ends; --raw: every command and its whole output as text)',
      )
      .argument('<workflow>', 'workflow id')
      .option('--raw', 'the raw log to stdout: each command line, then its whole output')
      .option('--step <n>', 'with --raw: only step n (numbered from 1, as the run page shows)'),
  ).action(run((ctx, id: string, flags: Parameters<typeof logsCommand>[2]) => logsCommand(ctx, id, flags)));
  program
    .command('report')
    .description("the workflow's report.md")
    .argument('<workflow>', 'workflow id')
    .option('--html', 'rendered as HTML')
    .action(run((ctx, id: string, flags: { html?: boolean }) => reportCommand(ctx, id, flags)));

  const files = program.command('files').description('files of a workflow workspace');
  files
    .command('ls')
    .description('list a directory')
    .argument('<workflow>', 'workflow id')
    .argument('[dir]', 'directory (default: the root)')
    .option('-r, --recursive', 'everything below it')
    .action(
      run((ctx, id: string, dir: string | undefined, flags: { recursive?: boolean }) => filesLs(ctx, id, dir, flags)),
    );
  files
    .command('get')
    .description('download a file')
    .argument('<workflow>', 'workflow id')
    .argument('<path>', 'path in the workspace')
    .option('-o, --output <file>', 'where to write it (- for stdout; default: its name, here)')
    .action(run((ctx, id: string, p: string, flags: { output?: string }) => filesGet(ctx, id, p, flags)));
  files
    .command('put')
    .description('upload a file (streamed)')
    .argument('<workflow>', 'workflow id')
    .argument('<local>', 'local file, or - for stdin')
    .argument('[path]', 'path in the workspace (default: the local name)')
    .action(run((ctx, id: string, local: string, p: string | undefined) => filesPut(ctx, id, local, p)));
  files
    .command('rm')
    .description('delete a file or directory')
    .argument('<workflow>', 'workflow id')
    .argument('<path>', 'path in the workspace')
    .action(run((ctx, id: string, p: string) => filesRm(ctx, id, p)));
  files
    .command('archive')
    .description('download the whole workspace as a .tar.gz')
    .argument('<workflow>', 'workflow id')
    .option('-o, --output <file>', 'where to write it (- for stdout; default: <workflow>.tar.gz)')
    .action(run((ctx, id: string, flags: { output?: string }) => filesArchive(ctx, id, flags)));

  const storage = program.command('storage').description("a project's object storage");
  storage
    .command('ls')
    .description('list a directory')
    .argument('[dir]', 'directory (default: the root)')
    .addOption(project())
    .action(run((ctx, dir: string | undefined) => storageLs(ctx, dir)));
  storage
    .command('get')
    .description('download an object')
    .argument('<path>', 'object path')
    .addOption(project())
    .option('-o, --output <file>', 'where to write it (- for stdout; default: its name, here)')
    .action(run((ctx, p: string, flags: { output?: string }) => storageGet(ctx, p, flags)));
  storage
    .command('put')
    .description('upload an object (streamed)')
    .argument('<local>', 'local file, or - for stdin')
    .argument('[path]', 'object path (default: the local name)')
    .addOption(project())
    .action(run((ctx, local: string, p: string | undefined) => storagePut(ctx, local, p)));
  storage
    .command('rm')
    .description('delete an object or directory')
    .argument('<path>', 'object path')
    .addOption(project())
    .action(run((ctx, p: string) => storageRm(ctx, p)));

  registerScheduleCommands(program, run, project);
  addTriggerCommands(program, run, project);
  addForgeCommands(program, run);
  addWebhookCommands(program, run, project);
  registerSecretCommands(program, run, project);
  registerRepositoryCommands(program, run, project);
  registerMcpCommands(program, run, project);
  registerAuditCommand(program, run, project);
  registerWorkerCommands(program, run);
  program
    .command('admin')
    .description('administration')
    .command('queue')
    .description('queued runs by required label set: depth, oldest wait, matching online workers (administrators)')
    .action(run((ctx) => adminQueueCommand(ctx)));

  void argvJson;
  return program;
}

/** Runs the CLI; resolves with the exit code (never throws). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let code: number = EXIT.ok;
  const json = argv.includes('--json');
  const program = buildProgram(io, (c) => (code = c), json);
  try {
    if (argv.length === 0) {
      io.stderr.write(program.helpInformation());
      return EXIT.cancelledOrUsage;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; everything else is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.cancelledOrUsage;
    }
    const exit = error instanceof CliError ? error.exitCode : EXIT.failed;
    // An error's message may quote the server (and so the agent): escaped like all other output.
    if (json) io.stderr.write(`${terminalSafe(JSON.stringify(errorJson(error)))}\n`);
    else io.stderr.write(`svc: ${terminalSafe(errorText(error))}\n`);
    return exit;
  }
}
