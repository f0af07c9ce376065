// What the console offers besides the methods' answers: the demo applications staged on live clusters (Submit). One
// definition, in runners/live/ (free of Node); the renderer takes these values from here and only types from the
// rest of electron/api/ (lint enforces it). The batch systems and their options come with clusters.list.
export { ASSETS_PLACEHOLDER, DEMO_APPS } from '../../runners/live/assets-placeholder.js';
