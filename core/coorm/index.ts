// CooRMv2 resource manager (Klein & Pérez 2011, section 3 and appendix A): public API. The simulator (H2) and the
// tests import from here only. Beyond the contract, CoormRms also offers read-only inspection
// (requestSnapshot, sessionSnapshot, sessionIds, freeNodeIds, lastPass) and counters (messagesProcessed, passes).
//
// Driving it: call advance(t) at t = nextWakeup() (and whenever convenient; it does nothing when nothing is due).
// Messages (request/done/connect/disconnect) trigger a pass at most once per re-scheduling interval; request starts
// and ends, and violation deadlines, trigger passes at their own time.
export type {
  RequestType,
  RelatedHow,
  View,
  RequestSpec,
  CoormRequest,
  RmsMessage,
  CoormCluster,
  CoormOptions,
  PreemptibleSharing,
} from './types.js';
export { REQUEST_TYPES, RELATED_HOWS } from './types.js';
export { CoormRms } from './rms.js';
export type { SessionSnapshot, RequestSnapshot } from './rms.js';
export type { PassResult } from './schedule.js';
export { spontaneousUpdate, announcedUpdate } from './updates.js';
export { viewOf, constantView, cap, union, sum, difference, alloc, findHole, emptyView } from './views.js';
