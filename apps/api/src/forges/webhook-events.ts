import type { ForgeKind } from './types';

/** The marker in every comment the service posts: a delivery of one of them is never feedback or a trigger. */
export const SVC_COMMENT_MARKER = '<!-- svc -->';

export interface ForgeIssueText {
  number: number;
  title: string;
  body: string;
  url: string;
}

/** What a delivery asks of the service, whatever the forge. */
export type ForgeIntent =
  /** an issue got the trigger label, or a comment with the trigger command: a run with the issue as requirement */
  | { kind: 'start'; issue: ForgeIssueText; via: 'label' | 'command'; instruction: string }
  /** a (review) comment on a pull request: feedback to the run that opened it, if the service did */
  | { kind: 'comment_on_pull'; pullNumber: number; author: string; body: string; where: string | null }
  | { kind: 'ignore'; reason: string };

export interface Triggers {
  label: string | null;
  command: string | null;
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);
const ignore = (reason: string): ForgeIntent => ({ kind: 'ignore', reason });

/** The text after the command when `body` starts with it (`/svc` matches `/svc` and `/svc fix it`, not `/svcx`). */
export function commandIn(body: string, command: string | null): string | null {
  if (!command) return null;
  const text = body.trimStart();
  if (!text.startsWith(command)) return null;
  const rest = text.slice(command.length);
  if (rest !== '' && !/^\s/.test(rest)) return null;
  return rest.trim();
}

const fromService = (body: string, sender: Json) => body.includes(SVC_COMMENT_MARKER) || str(sender.type) === 'Bot';

/** GitHub: who may steer a run by a comment (anyone may comment on a public repository). */
export const TRUSTED_ASSOCIATIONS = ['OWNER', 'MEMBER', 'COLLABORATOR'];
const untrusted = (item: Json) => !TRUSTED_ASSOCIATIONS.includes(str(item.author_association));
const UNTRUSTED = 'the author is not an owner, member or collaborator of the repository';

function githubIntent(event: string, payload: Json, triggers: Triggers): ForgeIntent {
  const action = str(payload.action);
  const sender = obj(payload.sender);
  if (event === 'issues') {
    const issue = obj(payload.issue);
    if (action !== 'labeled') return ignore(`issues.${action} is not a trigger`);
    if (!triggers.label || str(obj(payload.label).name) !== triggers.label)
      return ignore("the label is not the repository's trigger label");
    return { kind: 'start', via: 'label', instruction: '', issue: issueText(issue) };
  }
  if (event === 'issue_comment') {
    if (action !== 'created') return ignore(`issue_comment.${action} is not a trigger`);
    const comment = obj(payload.comment);
    const issue = obj(payload.issue);
    const body = str(comment.body);
    if (fromService(body, sender)) return ignore('a comment of the service (or a bot)');
    if (untrusted(comment)) return ignore(UNTRUSTED);
    if (issue.pull_request)
      return {
        kind: 'comment_on_pull',
        pullNumber: num(issue.number) ?? 0,
        author: str(obj(comment.user).login),
        body,
        where: null,
      };
    const instruction = commandIn(body, triggers.command);
    if (instruction === null) return ignore("the comment does not start with the repository's trigger command");
    return { kind: 'start', via: 'command', instruction, issue: issueText(issue) };
  }
  if (event === 'pull_request_review_comment') {
    if (action !== 'created') return ignore(`pull_request_review_comment.${action} is not feedback`);
    const comment = obj(payload.comment);
    const body = str(comment.body);
    if (fromService(body, sender)) return ignore('a comment of the service (or a bot)');
    if (untrusted(comment)) return ignore(UNTRUSTED);
    const line = num(comment.line) ?? num(comment.original_line);
    return {
      kind: 'comment_on_pull',
      pullNumber: num(obj(payload.pull_request).number) ?? 0,
      author: str(obj(comment.user).login),
      body,
      where: str(comment.path) ? `${str(comment.path)}${line ? `:${line}` : ''}` : null,
    };
  }
  if (event === 'pull_request_review') {
    const review = obj(payload.review);
    const body = str(review.body);
    if (action !== 'submitted' || body.trim() === '') return ignore('a review without a body is not feedback');
    if (fromService(body, sender)) return ignore('a review of the service (or a bot)');
    if (untrusted(review)) return ignore(UNTRUSTED);
    return {
      kind: 'comment_on_pull',
      pullNumber: num(obj(payload.pull_request).number) ?? 0,
      author: str(obj(review.user).login),
      body,
      where: null,
    };
  }
  return ignore(`the event ${event} is not one the service acts on`);
}

const issueText = (issue: Json): ForgeIssueText => ({
  number: num(issue.number) ?? 0,
  title: str(issue.title),
  body: str(issue.body),
  url: str(issue.html_url),
});

function giteaIntent(event: string, payload: Json, triggers: Triggers): ForgeIntent {
  const action = str(payload.action);
  const sender = obj(payload.sender);
  const issue = obj(payload.issue);
  if (event === 'issues') {
    if (action !== 'label_updated' && action !== 'labeled') return ignore(`issues.${action} is not a trigger`);
    const labels = Array.isArray(issue.labels) ? issue.labels.map((label) => str(obj(label).name)) : [];
    if (!triggers.label || !labels.includes(triggers.label))
      return ignore("the issue does not carry the repository's trigger label");
    return { kind: 'start', via: 'label', instruction: '', issue: issueText(issue) };
  }
  if (event === 'issue_comment' || event === 'pull_request_comment') {
    if (action !== 'created') return ignore(`${event}.${action} is not a trigger`);
    const comment = obj(payload.comment);
    const body = str(comment.body);
    if (fromService(body, sender)) return ignore('a comment of the service (or a bot)');
    if (payload.is_pull === true || issue.pull_request || event === 'pull_request_comment')
      return {
        kind: 'comment_on_pull',
        pullNumber: num(issue.number) ?? 0,
        author: str(obj(comment.user).login),
        body,
        where: null,
      };
    const instruction = commandIn(body, triggers.command);
    if (instruction === null) return ignore("the comment does not start with the repository's trigger command");
    return { kind: 'start', via: 'command', instruction, issue: issueText(issue) };
  }
  if (event === 'pull_request_review_comment' || event === 'pull_request_review') {
    const review = obj(payload.review);
    const body = str(review.content) || str(obj(payload.comment).body);
    if (body.trim() === '') return ignore('a review without a body is not feedback');
    if (fromService(body, sender)) return ignore('a review of the service (or a bot)');
    return {
      kind: 'comment_on_pull',
      pullNumber: num(obj(payload.pull_request).number) ?? 0,
      author: str(sender.login),
      body,
      where: null,
    };
  }
  return ignore(`the event ${event} is not one the service acts on`);
}

function gitlabIntent(event: string, payload: Json, triggers: Triggers): ForgeIntent {
  const attributes = obj(payload.object_attributes);
  const user = obj(payload.user);
  if (event === 'Issue Hook') {
    const labels = obj(obj(payload.changes).labels);
    const names = (list: unknown) => (Array.isArray(list) ? list.map((label) => str(obj(label).title)) : []);
    const added = names(labels.current).filter((name) => !names(labels.previous).includes(name));
    if (!triggers.label || !added.includes(triggers.label))
      return ignore("the repository's trigger label was not added");
    return {
      kind: 'start',
      via: 'label',
      instruction: '',
      issue: {
        number: num(attributes.iid) ?? 0,
        title: str(attributes.title),
        body: str(attributes.description),
        url: str(attributes.url),
      },
    };
  }
  if (event === 'Note Hook') {
    const body = str(attributes.note);
    if (body.includes(SVC_COMMENT_MARKER) || str(user.username) === '') return ignore('a comment of the service');
    const position = obj(attributes.position);
    if (str(attributes.noteable_type) === 'MergeRequest')
      return {
        kind: 'comment_on_pull',
        pullNumber: num(obj(payload.merge_request).iid) ?? 0,
        author: str(user.username),
        body,
        where: str(position.new_path)
          ? `${str(position.new_path)}${num(position.new_line) ? `:${num(position.new_line)}` : ''}`
          : null,
      };
    if (str(attributes.noteable_type) !== 'Issue') return ignore('a comment on neither an issue nor a merge request');
    const instruction = commandIn(body, triggers.command);
    if (instruction === null) return ignore("the comment does not start with the repository's trigger command");
    const issue = obj(payload.issue);
    return {
      kind: 'start',
      via: 'command',
      instruction,
      issue: {
        number: num(issue.iid) ?? 0,
        title: str(issue.title),
        body: str(issue.description),
        url: str(issue.url),
      },
    };
  }
  return ignore(`the event ${event} is not one the service acts on`);
}

/** What a verified delivery asks for. */
export function intentOf(forge: ForgeKind, event: string, payload: unknown, triggers: Triggers): ForgeIntent {
  const json = obj(payload);
  if (forge === 'github') return githubIntent(event, json, triggers);
  if (forge === 'gitea') return giteaIntent(event, json, triggers);
  return gitlabIntent(event, json, triggers);
}

/** The requirement of a run an issue starts: its title and text, the instruction after the command, its link. */
export function requirementOf(intent: Extract<ForgeIntent, { kind: 'start' }>): string {
  const parts = [intent.issue.title.trim(), intent.issue.body.trim()];
  if (intent.instruction) parts.push(intent.instruction);
  if (intent.issue.url) parts.push(`(Issue #${intent.issue.number}: ${intent.issue.url})`);
  return parts.filter((part) => part !== '').join('\n\n');
}

/** The feedback text a comment becomes: who said it, where, and what. */
export function feedbackOf(intent: Extract<ForgeIntent, { kind: 'comment_on_pull' }>): string {
  const who = intent.author ? `@${intent.author}` : 'A reviewer';
  return `${who} commented on the pull request${intent.where ? ` at ${intent.where}` : ''}:\n\n${intent.body.trim()}`;
}
