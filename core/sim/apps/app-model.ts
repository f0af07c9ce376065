// What a simulated application is to the simulator, and the parts the models are built from (model.ts picks one by
// a job's spec; ft.ts, gadget2.ts and leanmd.ts use these parts, so they live apart from that choice and import
// nothing back).

export interface AppModel {
  readonly name: string;
  /** Seconds the whole run takes on `size` processors. */
  runtime(size: number): number;
  /** Of `offered` more processors, how many it takes given its current size and maximum. */
  acceptGrow(current: number, offered: number, max: number): number;
  /** Asked to give back `requested`, how many it releases given its current size and minimum. */
  acceptShrink(current: number, requested: number, min: number): number;
  /** The size it actually uses when given `size` (the rest it releases on its own). */
  usableSize(size: number, min: number): number;
}

/** An application that uses any size it is given. */
export function anySizeApp(name: string, runtime: (size: number) => number): AppModel {
  // One model per job on a trace: its shared parts are made once.
  return { name, runtime, acceptGrow: takeWhatFits, acceptShrink: giveDownToMin, usableSize: anySize };
}

const takeWhatFits = (current: number, offered: number, max: number) => Math.max(0, Math.min(offered, max - current));
const giveDownToMin = (current: number, requested: number, min: number) =>
  Math.max(0, Math.min(requested, current - min));
const anySize = (size: number) => size;

/** Run time a + b/n + c·n: serial part, parallel part, and a per-processor overhead that makes it turn up. */
export function speedupCurve(a: number, b: number, c: number): (size: number) => number {
  return (n) => a + b / n + c * n;
}
