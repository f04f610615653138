// The scenarios module's public face: scenarios (the /scenarios group), their stored form and
// checks. Other modules and the app import this file only.
export { create, type ScenariosState } from './memory.js';
export * as schemas from './schemas.js';
export { scenarioProblems, StoredScenario, type ScenarioDoc } from './schemas.js';
export { stepAvailable } from './service.js';
export { scenariosModule } from './routes.js';
