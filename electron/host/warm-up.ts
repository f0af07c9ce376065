// How far a fresh run of `npm start` (serve, the window) is computed before its clock starts.
// Decision: `npm start` opens on a grid 3 h into its run (computed in well under a second before the clock starts, and
// said so in the console): with the default seed, W_m's jobs are then running, one grown to 46 processors, with
// background load on every cluster, where at 0 a new user would see one job of 2 processors.
export const DEFAULT_WARM_UP_S = 3 * 3600;
