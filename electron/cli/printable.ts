// The CLI prints users' text through the same filter the runners use for what they read from clusters.
export { printable } from '../../runners/shell/printable.js';
