import { expansionFor, shrinkPurpose } from './resize-reasons.js';

/** Virtual time as h:mm:ss (hours grow past 24). */
export function hms(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
}

/**
 * A scheduler's reason as the console shows it: the run times it names in seconds ("reserved to start at 2400.0175")
 * as h:mm:ss, like every other time on the page. Decision: here, not in the queue policies, which build the reason on
 * every pass for every reserved job and keep it cheap.
 */
export function reasonText(reason: string): string {
  return reason.replace(
    /\b(start at) (\d+(?:\.\d+)?)\b/g,
    (_, words: string, seconds: string) => `${words} ${hms(Number(seconds))}`,
  );
}

/** A profiled evolving job's step sizes, in order: `2→16→4`, the first four and `…` when there are more. */
export function stepSizes(steps: readonly number[]): string {
  return steps.slice(0, 4).join('→') + (steps.length > 4 ? '→…' : '');
}

/** A DBES expansion's or shrink's reason after the offer: " — for job C (step 1)", " — to start C", or ''. */
const why = (text: string) => (text ? ` — ${text}` : '');

/** One line for a scheduler event (without its time and type). */
export function describeEvent(e: import('./api/types.js').SchedulerEvent): string {
  const parts = (cs: ReadonlyArray<{ cluster: string; processors: number }>) =>
    cs.map((c) => `${c.cluster}:${c.processors}`).join(', ');
  switch (e.type) {
    case 'job.submitted':
      return `${e.kind} ${e.name} (${e.min}..${e.max})`;
    case 'job.queued':
      return `position ${e.position}`;
    case 'placement.failed':
      return `try ${e.tries}: ${e.reason}`;
    case 'job.placed':
      return `${e.policy} → ${parts(e.components)}`;
    case 'job.claimed':
      return parts(e.components);
    case 'claim.failed':
      return e.reason;
    case 'job.started':
      return `on ${e.cluster}, size ${e.size}${e.preallocation !== undefined ? `, pre-allocation ${e.preallocation} held` : ''}`;
    case 'job.adopted':
      return `after a restart, ${e.state} on ${e.cluster} with ${e.size} processors`;
    case 'grow.offered':
      return `${e.processors} on ${e.cluster} (offer ${e.offerId})${e.operator ? ' by the operator' : ''}${why(e.operator ? '' : expansionFor(e))}`;
    case 'grow.answered':
      return `accepted ${e.accepted} (offer ${e.offerId})${why(e.operator ? '' : expansionFor(e))}`;
    case 'shrink.answered':
      return `accepted ${e.accepted} (offer ${e.offerId})`;
    case 'job.grown':
      return `+${e.processors} on ${e.cluster} → ${e.size}`;
    case 'shrink.requested':
      return `${e.processors} on ${e.cluster}${e.mandatory ? ' (mandatory)' : ''} (offer ${e.offerId})${e.operator ? ' by the operator' : ''}${why(shrinkPurpose(e))}`;
    case 'job.shrunk':
      return `−${e.processors} on ${e.cluster} → ${e.size}${e.voluntary ? ' (voluntary)' : ''}`;
    case 'job.growFailed':
      return `grow failed: ${e.processors} processor${e.processors === 1 ? '' : 's'} on ${e.cluster} will not come, stays at ${e.size}: ${e.reason}`;
    case 'evolve.requested':
      return e.announceS > 0
        ? `asks for ${e.processors} on ${e.cluster} in ${e.announceS} s (announced)`
        : `asks for ${e.processors} on ${e.cluster} now`;
    case 'job.evolved':
      return `now ${e.size} of its pre-allocation of ${e.preallocation} on ${e.cluster}`;
    case 'evolve.refused':
      return `update refused: ${e.reason}`;
    case 'job.ended':
      return `${e.state}${e.reason ? `: ${e.reason}` : ''}`;
    case 'interactive.admitted':
      return `admitted on ${e.cluster}: ${e.nodes.length} tasks of ${e.costMs} ms (RT-DLT's minimum ${e.minNodes}) on nodes ${[...new Set(e.nodes)].join(', ')}, every ${e.periodMs} ms, deadline ${e.deadlineMs} ms`;
    case 'interactive.replaced':
      return `ran ${e.executedMs} ms, over its cost bound: placed again on ${e.cluster} (placement ${e.generation}): ${e.nodes.length} tasks of ${e.costMs} ms on nodes ${[...new Set(e.nodes)].join(', ')}`;
    case 'fpe.scheduled':
      return `scheduled by ${e.variant} on ${e.cluster} from ${hms(e.start)}: steps ${e.steps.map((s) => `${s.processors}×${hms(s.durationS)}`).join(', ')}`;
    case 'fpe.step': {
      const waited =
        e.step === 1
          ? e.delayedS > 0
            ? `, delayed ${hms(e.delayedS)}`
            : ''
          : e.expandedS > 0
            ? `, after step ${e.step - 1} was expanded by ${hms(e.expandedS)} (idle)`
            : '';
      return `step ${e.step}: ${e.processors} processors on ${e.cluster}${waited}`;
    }
    case 'fpe.growFailed':
      return `step ${e.step}'s grow failed, ${e.missing} processor${e.missing === 1 ? '' : 's'} short (${e.attempt} of ${e.attempts}): ${e.reason}${e.retryAt === undefined ? '' : `; asked again from ${hms(e.retryAt)}`}`;
    case 'fpe.mutualWait': {
      const others = e.jobs.filter((j) => j !== e.jobId).join(', ');
      return e.action === 'stepTaken'
        ? `stalled with ${others} on ${e.cluster}, each waiting for the other's processors: took step ${e.step} from the ${e.free} free processors it had yielded to ${others}`
        : `stalled with ${others} on ${e.cluster}, each waiting for the other's processors: ended (evolution deadlock) so ${others} can go on`;
    }
    case 'interactive.missed':
      return `missed its deadline of ${e.deadlineMs} ms (task ${e.task}${e.node >= 0 ? ` on node ${e.node}` : ''}, ran ${e.executedMs} ms${e.responseMs !== undefined ? `, ended ${e.responseMs} ms after its release` : ''}; ${e.misses} miss${e.misses === 1 ? '' : 'es'} so far)`;
    case 'cluster.polled':
      return `${e.cluster}: ${e.processors} processors, ${e.background} background${e.reachable ? '' : ', unreachable'}`;
  }
}

/**
 * The operator's latest grow or shrink of a job, from its events, in one line: what the operator asked, what the
 * application did (its own figure too when it said more than was taken), and the cap that results (`cap` below
 * `max`: the policies grow the job no further until an operator grows it). Undefined before any operator resize.
 */
export function operatorResizeLine(
  events: ReadonlyArray<import('./api/types.js').SchedulerEvent>,
  job: { readonly max: number; readonly cap?: number | undefined },
): string | undefined {
  let asked:
    Extract<import('./api/types.js').SchedulerEvent, { type: 'grow.offered' | 'shrink.requested' }> | undefined;
  for (let i = events.length - 1; i >= 0 && !asked; i--) {
    const e = events[i]!;
    if ((e.type === 'grow.offered' || e.type === 'shrink.requested') && e.operator) asked = e;
  }
  if (!asked) return undefined;
  const grow = asked.type === 'grow.offered';
  const offerId = asked.offerId;
  const answer = events.find(
    (e) => (e.type === 'grow.answered' || e.type === 'shrink.answered') && e.offerId === offerId,
  );
  const said = answer && (answer.type === 'grow.answered' || answer.type === 'shrink.answered') ? answer : undefined;
  const parts = [`operator asked to ${grow ? 'grow' : 'shrink'} by ${asked.processors}`];
  if (!said) parts.push('waiting for the application');
  else {
    const own = said.answered !== undefined ? ` (it answered ${said.answered})` : '';
    parts.push(
      grow ? `the application took ${said.accepted}${own}` : `the application gave back ${said.accepted}${own}`,
    );
  }
  parts.push(
    job.cap !== undefined && job.cap < job.max
      ? `cap ${job.cap}: the policies grow it no further until an operator grows it`
      : `no cap below its max ${job.max}`,
  );
  return parts.join(' · ');
}
