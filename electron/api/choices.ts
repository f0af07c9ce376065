// What the console offers besides the methods' answers: the batch systems and which of their options each one takes
// (Settings → Clusters), and the demo applications staged on live clusters (Submit). One definition each, in
// runners/live/ (free of Node); the renderer takes these values from here and only types from the rest of
// electron/api/ (lint enforces it).
export { BATCH_OPTION_SYSTEMS, BATCH_SYSTEMS } from '../../runners/live/config.js';
export { ASSETS_PLACEHOLDER, DEMO_APPS } from '../../runners/live/assets-placeholder.js';
