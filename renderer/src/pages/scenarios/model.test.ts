import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/client';
import { TRIGGER_TYPES as SERVER_TRIGGERS } from '../../../../server/shared/scenarios';
import {
  InvalidJson, TRIGGER_TYPES, draftFromJson, draftToJson, localProblems, parseJsonField, placeErrors, stepStatuses, type Draft, type Execution,
} from './model';

describe('scenario editor model', () => {
  it('offers every trigger type of the server', () => {
    expect([...TRIGGER_TYPES].sort()).toEqual([...SERVER_TRIGGERS].sort());
  });

  it('round-trips a draft through the JSON view, unknown step fields included', () => {
    const d: Draft = {
      name: 'N', description: 'D', trigger: { type: 'event', events: ['record.*'], filter: { collection: 'c' } },
      steps: [{ type: 'http', url: 'http://x', headers: { a: 'b' }, body: { k: [1, 2] }, extra: true }, { type: 'delay', ms: 5 }],
    };
    expect(draftFromJson(draftToJson(d))).toEqual({ draft: d });
    expect(draftFromJson(draftToJson({ ...d, description: '' }))).toEqual({ draft: { ...d, description: '' } });
  });

  it('says why a JSON text is not a scenario', () => {
    expect(draftFromJson('{').error).toMatch(/^Not JSON/);
    expect(draftFromJson('[]').error).toMatch(/object/);
    expect(draftFromJson('{"name": 1}').error).toMatch(/name/);
    expect(draftFromJson('{"name": "a", "steps": {}}').error).toMatch(/steps/);
    expect(draftFromJson('{"name": "a", "steps": [{"url": "x"}]}').error).toMatch(/steps\.0/);
    expect(draftFromJson('{"name": "a", "active": true}').error).toMatch(/'active'/);
    expect(draftFromJson('{"name": "a"}').draft).toEqual({ name: 'a', description: '', trigger: { type: 'manual' }, steps: [] });
  });

  it('places a 422’s problems at the trigger, their step, or the scenario', () => {
    const err = new ApiError(422, 'VALIDATION_ERROR', 'bad', {
      field: 'trigger.cron', reason: 'format',
      errors: [
        { field: 'trigger.cron', reason: 'format', message: 'cron bad' },
        { field: 'steps.1.ms', reason: 'too_long', message: 'too long' },
        { field: 'steps.1', reason: 'invalid', message: 'template' },
        { field: 'steps.12.url', reason: 'format', message: 'url' },
        { field: 'steps', reason: 'too_short', message: 'no steps' },
      ],
    });
    const p = placeErrors(err);
    expect(p.trigger).toEqual([{ field: 'trigger.cron', sub: 'cron', message: 'cron bad' }]);
    expect(p.steps.get(1)).toEqual([{ field: 'steps.1.ms', sub: 'ms', message: 'too long' }, { field: 'steps.1', sub: '', message: 'template' }]);
    expect(p.steps.get(12)?.[0].sub).toBe('url');
    expect(p.scenario).toEqual([{ field: 'steps', message: 'no steps' }]);
    expect(placeErrors(new ApiError(500, 'INTERNAL', 'x')).steps.size).toBe(0);
  });

  it('parses JSON fields, keeping templates as text and marking broken JSON', () => {
    expect(parseJsonField('{"a": 1}', true)).toEqual({ a: 1 });
    expect(parseJsonField('{{event.data}}', true)).toBe('{{event.data}}');
    expect(parseJsonField('plain words', true)).toBe('plain words');
    expect(parseJsonField('{"a": ', true)).toBeInstanceOf(InvalidJson);
    expect(parseJsonField('plain', false)).toBeInstanceOf(InvalidJson);
    const p = localProblems({ name: 'n', description: '', trigger: { type: 'manual' }, steps: [{ type: 'delay', ms: 1 }, { type: 'record.create', data: new InvalidJson('{', 'x') }] });
    expect([...p.steps.keys()]).toEqual([1]);
    expect(p.steps.get(1)?.[0].sub).toBe('data');
  });

  it('shows the steps a running execution has not reached', () => {
    const exec = { status: 'running', steps: [{ type: 'http', status: 'succeeded', output: 1, error: null }] } as unknown as Execution;
    const steps = [{ type: 'http' }, { type: 'delay' }, { type: 'record.delete' }];
    expect(stepStatuses(exec, steps).map((s) => `${s.type}:${s.status}`)).toEqual(['http:succeeded', 'delay:running', 'record.delete:pending']);
    expect(stepStatuses({ ...exec, status: 'failed' }, steps)).toHaveLength(1);
  });
});
