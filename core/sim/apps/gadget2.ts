// GADGET-2, as malleable in the KOALA paper: any size (it balances its load). About 10 min on 2 processors,
// 4 min at best.
import { anySizeApp, speedupCurve } from './app-model.js';

// Fitted so that t(2) = 600 s and the minimum, t(24) = 240 s (Figure 6's shape: fast gains, then a slow rise).
export const gadget2 = anySizeApp('gadget2', speedupCurve(168.6, 856.9, 1.4876));
