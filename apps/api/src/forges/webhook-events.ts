import type { ForgeKind, ForgeUser } from './types';

/** The marker in every comment the service posts: a delivery of one of them is never feedback or a trigger. */
export const SVC_COMMENT_MARKER = '<!-- svc -->';

export interface ForgeIssueText {
  number: number;
  title: string;
  body: string;
  url: string;
}

/**
 * What a delivery asks of the service, whatever the forge. `checkRole`: the payload does not say whether
 * the commenter may write to the repository (Gitea, GitLab), so the forge is asked before acting.
 */
export type ForgeIntent =
  /** an issue got the trigger label, or a comment with the trigger command: a run with the issue as requirement */
  | { kind: 'start'; issue: ForgeIssueText; via: 'label' | 'command'; instruction: string; checkRole?: ForgeUser }
  /** a (review) comment on a pull request: feedback to the run that opened it, if the service did */
  | {
      kind: 'comment_on_pull';
      pullNumber: number;
      author: string;
      body: string;
      where: string | null;
      checkRole?: ForgeUser;
    }
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

type Handler = (payload: Json, triggers: Triggers) => ForgeIntent;

const issueText = (issue: Json): ForgeIssueText => ({
  number: num(issue.number) ?? 0,
  title: str(issue.title),
  body: str(issue.body),
  url: str(issue.html_url),
});

const lineOf = (comment: Json) => num(comment.line) ?? num(comment.original_line);
const placeOf = (path: string, line: number | null) => (path ? `${path}${line ? `:${line}` : ''}` : null);

/**
 * A comment on an issue: a command starts a run; on a pull request: feedback (whatever it says). With
 * `checkRole`, whether its author may steer is asked of the forge.
 */
function issueComment(
  body: string,
  issue: Json,
  onPull: boolean,
  author: string,
  triggers: Triggers,
  checkRole?: ForgeUser,
): ForgeIntent {
  const role = checkRole ? { checkRole } : {};
  if (onPull)
    return { kind: 'comment_on_pull', pullNumber: num(issue.number) ?? 0, author, body, where: null, ...role };
  const instruction = commandIn(body, triggers.command);
  if (instruction === null) return ignore("the comment does not start with the repository's trigger command");
  return { kind: 'start', via: 'command', instruction, issue: issueText(issue), ...role };
}

/** Gitea: the commenter as the collaborator-permission call names them (login). */
const giteaUser = (user: Json): ForgeUser => ({ login: str(user.login) || str(user.username), id: num(user.id) });

/** Why a GitHub comment or review is not read: the service's own, a bot's, or an untrusted author's. */
function githubRefusal(body: string, payload: Json, item: Json): string | null {
  if (fromService(body, obj(payload.sender))) return 'a comment of the service (or a bot)';
  if (untrusted(item)) return UNTRUSTED;
  return null;
}

const GITHUB: Record<string, Handler> = {
  issues: (payload, triggers) => {
    if (str(payload.action) !== 'labeled') return ignore(`issues.${str(payload.action)} is not a trigger`);
    if (!triggers.label || str(obj(payload.label).name) !== triggers.label)
      return ignore("the label is not the repository's trigger label");
    return { kind: 'start', via: 'label', instruction: '', issue: issueText(obj(payload.issue)) };
  },
  issue_comment: (payload, triggers) => {
    if (str(payload.action) !== 'created') return ignore(`issue_comment.${str(payload.action)} is not a trigger`);
    const comment = obj(payload.comment);
    const issue = obj(payload.issue);
    const body = str(comment.body);
    const refusal = githubRefusal(body, payload, comment);
    if (refusal) return ignore(refusal);
    return issueComment(body, issue, Boolean(issue.pull_request), str(obj(comment.user).login), triggers);
  },
  pull_request_review_comment: (payload) => {
    if (str(payload.action) !== 'created')
      return ignore(`pull_request_review_comment.${str(payload.action)} is not feedback`);
    const comment = obj(payload.comment);
    const body = str(comment.body);
    const refusal = githubRefusal(body, payload, comment);
    if (refusal) return ignore(refusal);
    return {
      kind: 'comment_on_pull',
      pullNumber: num(obj(payload.pull_request).number) ?? 0,
      author: str(obj(comment.user).login),
      body,
      where: placeOf(str(comment.path), lineOf(comment)),
    };
  },
  pull_request_review: (payload) => {
    const review = obj(payload.review);
    const body = str(review.body);
    if (str(payload.action) !== 'submitted' || body.trim() === '')
      return ignore('a review without a body is not feedback');
    const refusal = githubRefusal(body, payload, review);
    if (refusal) return ignore(refusal);
    return {
      kind: 'comment_on_pull',
      pullNumber: num(obj(payload.pull_request).number) ?? 0,
      author: str(obj(review.user).login),
      body,
      where: null,
    };
  },
};

const giteaLabels = (issue: Json) =>
  Array.isArray(issue.labels) ? issue.labels.map((label) => str(obj(label).name)) : [];

function giteaComment(event: string): Handler {
  return (payload, triggers) => {
    if (str(payload.action) !== 'created') return ignore(`${event}.${str(payload.action)} is not a trigger`);
    const comment = obj(payload.comment);
    const issue = obj(payload.issue);
    const body = str(comment.body);
    if (fromService(body, obj(payload.sender))) return ignore('a comment of the service (or a bot)');
    const onPull = payload.is_pull === true || Boolean(issue.pull_request) || event === 'pull_request_comment';
    const user = giteaUser(obj(comment.user));
    return issueComment(body, issue, onPull, user.login, triggers, user);
  };
}

const giteaReview: Handler = (payload) => {
  const body = str(obj(payload.review).content) || str(obj(payload.comment).body);
  if (body.trim() === '') return ignore('a review without a body is not feedback');
  if (fromService(body, obj(payload.sender))) return ignore('a review of the service (or a bot)');
  const user = giteaUser(obj(payload.sender));
  return {
    kind: 'comment_on_pull',
    pullNumber: num(obj(payload.pull_request).number) ?? 0,
    author: user.login,
    body,
    where: null,
    checkRole: user,
  };
};

const GITEA: Record<string, Handler> = {
  issues: (payload, triggers) => {
    const action = str(payload.action);
    if (action !== 'label_updated' && action !== 'labeled') return ignore(`issues.${action} is not a trigger`);
    const issue = obj(payload.issue);
    if (!triggers.label || !giteaLabels(issue).includes(triggers.label))
      return ignore("the issue does not carry the repository's trigger label");
    return { kind: 'start', via: 'label', instruction: '', issue: issueText(issue) };
  },
  issue_comment: giteaComment('issue_comment'),
  pull_request_comment: giteaComment('pull_request_comment'),
  pull_request_review_comment: giteaReview,
  pull_request_review: giteaReview,
};

const gitlabLabelTitles = (list: unknown) => (Array.isArray(list) ? list.map((label) => str(obj(label).title)) : []);

const gitlabIssue = (issue: Json): ForgeIssueText => ({
  number: num(issue.iid) ?? 0,
  title: str(issue.title),
  body: str(issue.description),
  url: str(issue.url),
});

/** GitLab: the commenter as the project-member call names them (user id; the note's author_id otherwise). */
const gitlabUser = (payload: Json): ForgeUser => ({
  login: str(obj(payload.user).username),
  id: num(obj(payload.user).id) ?? num(obj(payload.object_attributes).author_id),
});

function gitlabNoteOnMergeRequest(payload: Json, body: string): ForgeIntent {
  const position = obj(obj(payload.object_attributes).position);
  const user = gitlabUser(payload);
  return {
    kind: 'comment_on_pull',
    pullNumber: num(obj(payload.merge_request).iid) ?? 0,
    author: user.login,
    body,
    where: placeOf(str(position.new_path), num(position.new_line)),
    checkRole: user,
  };
}

const GITLAB: Record<string, Handler> = {
  'Issue Hook': (payload, triggers) => {
    const labels = obj(obj(payload.changes).labels);
    const before = gitlabLabelTitles(labels.previous);
    const added = gitlabLabelTitles(labels.current).filter((name) => !before.includes(name));
    if (!triggers.label || !added.includes(triggers.label))
      return ignore("the repository's trigger label was not added");
    return { kind: 'start', via: 'label', instruction: '', issue: gitlabIssue(obj(payload.object_attributes)) };
  },
  'Note Hook': (payload, triggers) => {
    const attributes = obj(payload.object_attributes);
    const body = str(attributes.note);
    if (body.includes(SVC_COMMENT_MARKER)) return ignore('a comment of the service');
    const on = str(attributes.noteable_type);
    if (on === 'MergeRequest') return gitlabNoteOnMergeRequest(payload, body);
    if (on !== 'Issue') return ignore('a comment on neither an issue nor a merge request');
    const instruction = commandIn(body, triggers.command);
    if (instruction === null) return ignore("the comment does not start with the repository's trigger command");
    return {
      kind: 'start',
      via: 'command',
      instruction,
      issue: gitlabIssue(obj(payload.issue)),
      checkRole: gitlabUser(payload),
    };
  },
};

const HANDLERS: Record<ForgeKind, Record<string, Handler>> = { github: GITHUB, gitea: GITEA, gitlab: GITLAB };

/** What a verified delivery asks for. */
export function intentOf(forge: ForgeKind, event: string, payload: unknown, triggers: Triggers): ForgeIntent {
  const handler = Object.hasOwn(HANDLERS[forge], event) ? HANDLERS[forge][event] : undefined;
  return handler ? handler(obj(payload), triggers) : ignore(`the event ${event} is not one the service acts on`);
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
