// What the scenarios module holds for one server: its engine (schedules, running executions),
// made on first use.
import type { BaseContext } from '../context.js';
import type { ScenarioEngine } from './engine.js';

export interface ScenariosState { engine?: ScenarioEngine }

export function create(_ctx: BaseContext): ScenariosState {
  return {};
}
