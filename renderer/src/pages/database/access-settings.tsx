// The four access settings of a collection (read, write, update, remove: public, private or
// only-user), each choice explained in words.
import type { CollectionSetting } from '../../../../server/shared/models';

const CHOICES = {
  read: [
    ['public', 'Anyone, even without a token, can list and read records'],
    ['private', 'Any signed-in user of this workspace can list and read records'],
    ['only-user', 'Each signed-in user lists and reads only the records they created'],
  ],
  write: [
    ['public', 'Anyone, even without a token, can create records'],
    ['private', 'Any signed-in user can create records'],
  ],
  update: [
    ['private', 'Any signed-in user can change any record'],
    ['only-user', 'Only the user who created a record can change it'],
  ],
  remove: [
    ['', 'Same as "Change records"'],
    ['private', 'Any signed-in user can delete any record'],
    ['only-user', 'Only the user who created a record can delete it'],
  ],
} as const;

const TITLES = { read: 'Read records', write: 'Create records', update: 'Change records', remove: 'Delete records' } as const;

export type SettingDraft = { read: string; write: string; update: string; remove: string };

export function settingDraft(s?: Partial<CollectionSetting>): SettingDraft {
  return { read: s?.read ?? 'private', write: s?.write ?? 'private', update: s?.update ?? 'private', remove: s?.remove ?? '' };
}

export function settingBody(d: SettingDraft): Record<string, string | null> {
  return { read: d.read, write: d.write, update: d.update, remove: d.remove || null };
}

export function AccessSettings({ value, onChange, errors = {} }: { value: SettingDraft; onChange: (v: SettingDraft) => void; errors?: Record<string, string> }) {
  return (
    <div className="stack">
      {(Object.keys(CHOICES) as Array<keyof typeof CHOICES>).map((key) => (
        <fieldset key={key}>
          <legend>{TITLES[key]}</legend>
          {CHOICES[key].map(([v, words]) => (
            <label key={v} className="check" style={{ display: 'flex' }}>
              <input type="radio" name={`setting-${key}`} value={v} checked={value[key] === v} onChange={() => onChange({ ...value, [key]: v })} />
              <span><code>{v || 'follow update'}</code> — {words}</span>
            </label>
          ))}
          {errors[`setting.${key}`] ? <span className="field-error">{errors[`setting.${key}`]}</span> : null}
        </fieldset>
      ))}
      <p className="muted small">Admins can always do everything. Records created with a token remember their creator in <code>_owner</code>.</p>
    </div>
  );
}
