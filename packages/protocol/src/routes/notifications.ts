import {
  NotificationPreferencesSchema,
  PutNotificationPreferencesRequestSchema,
  TestNotificationRequestSchema,
  TestNotificationResultSchema,
} from '../rest/notifications';
import { API, defineOperations, json, jsonBody, pathParams } from './operation';

/** The path of the answer links of waiting-for-input mails (no session: the token is the credential). */
export const ANSWER_LINK_PATH = '/svc/answer';
const answerToken = pathParams({ token: 'the answer link token' });

/** A person's notifications (e-mail, chat webhooks) and the single-use answer page of their mails (decision 0045). */
export const NOTIFICATION_OPERATIONS = defineOperations({
  getMyNotifications: {
    method: 'GET',
    path: `${API}/me/notifications`,
    tag: 'notifications',
    auth: 'required',
    action: 'signed-in',
    summary: "The caller's notification preferences (never the chat webhook URL)",
    responses: { 200: json('the preferences', NotificationPreferencesSchema) },
  },
  putMyNotifications: {
    method: 'PUT',
    path: `${API}/me/notifications`,
    tag: 'notifications',
    auth: 'required',
    action: 'signed-in',
    summary: "Change the caller's notification preferences (fields left out keep their value)",
    description:
      'Per channel (`email`, `chat`) and per event (`waiting_for_input`, `completed`, `failed`, ' +
      '`budget_reached`); `projects` limits them to some projects (null: all the caller is a member of). ' +
      '`chat.url` is stored encrypted; `null` removes it. A project-narrowed api token is refused (403).',
    body: jsonBody(PutNotificationPreferencesRequestSchema),
    responses: { 200: json('the preferences', NotificationPreferencesSchema) },
    errors: [400],
  },
  testMyNotifications: {
    method: 'POST',
    path: `${API}/me/notifications/test`,
    tag: 'notifications',
    auth: 'required',
    action: 'signed-in',
    summary: 'Send a test message on one channel now',
    description: '503 `unavailable` when the mail server or the webhook refuses it (the reason is in the message).',
    body: jsonBody(TestNotificationRequestSchema),
    responses: { 200: json('sent', TestNotificationResultSchema) },
    errors: [400, 409, 429, 503],
  },
  getAnswerPage: {
    method: 'GET',
    path: `${ANSWER_LINK_PATH}/{token}`,
    tag: 'notifications',
    auth: 'public',
    action: 'public',
    params: answerToken,
    summary: "An answer link's page: the run's question and a form to answer it (no session)",
    description:
      'A question with choices shows a button per choice (and its default and deadline). ' +
      'Showing the page does not use the link (mail scanners open links). A used, expired or unknown link, ' +
      'or one whose question was answered or replaced, gets a page saying so (410; 404 for an unknown one).',
    responses: {
      200: { description: 'the page', contentType: 'text/html' },
      410: {
        description: 'the link was used, expired or its question is no longer open (a page)',
        contentType: 'text/html',
      },
    },
  },
  postAnswerPage: {
    method: 'POST',
    path: `${ANSWER_LINK_PATH}/{token}`,
    tag: 'notifications',
    auth: 'public',
    action: 'public',
    params: answerToken,
    summary: 'Answer the question through its link, once',
    description:
      'Form fields `answer` and `question_seq` (the question the page showed). The answer goes through the ' +
      'same path as `POST /workflows/{id}/answer`, as the person the mail was sent to, who must still be a ' +
      "member of the project. The link is used up by the first answer; an answer outside the question's " +
      'choices is refused (400) before that, so the link stays usable.',
    body: { contentTypes: ['application/x-www-form-urlencoded'], required: true, description: 'answer, question_seq' },
    responses: {
      200: { description: 'the page confirming the answer', contentType: 'text/html' },
      410: {
        description: 'the link was used, expired or its question is no longer open (a page)',
        contentType: 'text/html',
      },
    },
    errors: [400, 403],
  },
});
