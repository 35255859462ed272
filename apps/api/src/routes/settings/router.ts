import { auditContextOf, recordAudit } from '../../audit/record';
import { SettingKeySchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { invalidInput } from '../../domain/errors';
import { authorizeGlobal } from '../../policies/access';
import { LLM_DETAIL_RETENTION_KEY, pruneLlmDetails } from '../../ingest/detail-retention';
import { settingDefinitions, settingProblem } from './catalog';

/**
 * `GET /settings` and `GET /settings/schema` (anyone signed in), `PUT /settings/{key}` (administrators):
 * a value of a setting the service reads must be valid for its type.
 */
export function settingHandlers(deps: AppDeps): Handlers<'getSettings' | 'getSettingsSchema' | 'putSetting'> {
  const { db } = deps;

  const getSettings: OperationHandler<'getSettings'> = async (req, res) => {
    authorizeGlobal(principalOf(req), 'settings.read');
    const rows = await db.setting.findMany({ orderBy: { key: 'asc' } });
    res.json(Object.fromEntries(rows.map((row) => [row.key, row.value])));
  };

  const getSettingsSchema: OperationHandler<'getSettingsSchema'> = (req, res) => {
    authorizeGlobal(principalOf(req), 'settings.read');
    res.json(settingDefinitions());
  };

  const putSetting: OperationHandler<'putSetting'> = async (req, res, input) => {
    const principal = principalOf(req);
    authorizeGlobal(principal, 'settings.write');
    const key = parseInput(SettingKeySchema, req.params.key, 'path.key');
    const { value } = input.body();
    const problem = settingProblem(key, value);
    if (problem) throw invalidInput(`body.value: ${key}: ${problem}`);
    const updatedBy = principal.kind === 'user' ? principal.user.id : null;
    const row = await db.$transaction(async (tx) => {
      const saved = await tx.setting.upsert({
        where: { key },
        create: { key, value, updated_by: updatedBy },
        update: { value, updated_by: updatedBy },
      });
      // Settings are readable by every signed-in person, so the value is no secret; long ones are cut.
      await recordAudit(tx, auditContextOf(req), {
        action: 'setting.updated',
        target: { type: 'setting', id: key },
        detail: { value: typeof value === 'string' && value.length > 200 ? `${value.slice(0, 200)}…` : value },
      });
      return saved;
    });
    // Applied before the answer: details the new retention does not allow are unreadable from now on,
    // not only after the next hourly sweep (issue 21, finding 9).
    if (key === LLM_DETAIL_RETENTION_KEY) await pruneLlmDetails(db);
    res.json({ key: row.key, value: row.value, updated_at: row.updated_at.toISOString() });
  };

  return { getSettings, getSettingsSchema, putSetting };
}
